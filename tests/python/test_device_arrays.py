"""Device arrays (label gpu): decode_batch(out="cuda") gives arrays in the
device's memory that export DLPack, equal to the host results; torch (where
installed) takes them as they are, and encode takes torch's device tensors.
Without a CUDA device every test skips, saying so."""

import numpy as np
import pytest

import mallat
from mallat import _mallat
from conftest import random_image

pytestmark = pytest.mark.skipif(_mallat.cuda_device_count() == 0,
                                reason="no CUDA device here (or no CUDA in this build): the gpu tests run on one")

IMAGES = [random_image((64 + 16 * i, 96) + ((3,) if i % 2 else ()), np.uint8 if i % 3 else np.uint16, seed=i)
          for i in range(5)]


def test_decode_batch_to_the_device_equals_the_host_results():
    engine = mallat.Engine("cuda")
    files = engine.encode_batch(IMAGES)
    device = engine.decode_batch(files, out="cuda")
    for array, image in zip(device, IMAGES):
        assert isinstance(array, mallat.DeviceArray)
        assert array.__dlpack_device__()[0] == 2 and array.shape == image.shape and array.dtype == image.dtype
        np.testing.assert_array_equal(array.to_host(), image)
    results = engine.decode_batch(files[:1] + [b"not a JPEG 2000 file"], out="cuda", errors="return")
    assert isinstance(results[0], mallat.DeviceArray) and isinstance(results[1], mallat.CorruptDataError)
    # One image, from the engine and the module (decoded on the CPU, copied up).
    for one in (engine.decode(files[1], out="cuda"), mallat.decode(files[1], out="cuda")):
        assert isinstance(one, mallat.DeviceArray)
        np.testing.assert_array_equal(one.to_host(), IMAGES[1])


def test_torch_takes_them_and_gives_them():
    torch = pytest.importorskip("torch", reason="torch is not installed (the device machine's venv has it)")
    engine = mallat.Engine("cuda")
    files = engine.encode_batch(IMAGES)
    for array, image in zip(engine.decode_batch(files, out="cuda"), IMAGES):
        tensor = torch.from_dlpack(array)
        assert tensor.is_cuda
        np.testing.assert_array_equal(tensor.cpu().numpy(), image)
        assert mallat.encode(tensor) == mallat.encode(image)


def _mixed_files():
    """Files that take each way to the device: whole 8-bit images decoded on
    the GPU (one tile and several, lossless, lossy, HT, a JP2 file, one and
    three components), and 16-bit ones that give no raster."""
    big = random_image((384, 512, 3), np.uint8, seed=11)
    grey = random_image((200, 300), np.uint8, seed=12)
    wide = random_image((96, 80, 3), np.uint16, seed=13, bits=12)
    return [mallat.encode(big), mallat.encode(big, psnr=40), mallat.encode(big, ht=True), mallat.encode(big, tile=128),
            mallat.encode(grey, jp2=True), mallat.encode(grey, ht=True, tile=96, lossless=False),
            mallat.encode(wide), mallat.encode(IMAGES[1])]


@pytest.mark.parametrize("device", ["cuda", "cpu"])
def test_device_output_is_the_host_output(device):
    """On the device engine the 8-bit images' rasters stay on the GPU; on the
    CPU engine they go up from the host: either way torch.from_dlpack of the
    result is the host decode's array (shape, dtype, every sample), batch
    after batch."""
    torch = pytest.importorskip("torch", reason="torch is not installed (the device machine's venv has it)")
    engine = mallat.Engine(device)
    files = _mixed_files()
    host = engine.decode_batch(files)
    for _ in range(2):
        for array, want in zip(engine.decode_batch(files, out="cuda"), host):
            assert array.__dlpack_device__() == (2, 0)
            tensor = torch.from_dlpack(array)
            assert tensor.is_cuda and tuple(tensor.shape) == want.shape
            assert tensor.dtype == {np.dtype(np.uint8): torch.uint8, np.dtype(np.uint16): torch.uint16}[want.dtype]
            np.testing.assert_array_equal(tensor.cpu().numpy(), want)
            np.testing.assert_array_equal(array.to_host(), want)
    picked = engine.decode_batch(files[:1], components=[2, 0], out="cuda")[0]
    np.testing.assert_array_equal(picked.to_host(), host[0][:, :, [2, 0]])


def test_device_arrays_outlive_their_engine_and_free_into_the_pool():
    """Arrays hold their memory after the engine is gone; dropped, it goes
    back to the pool for the next batch (memory stays bounded over rounds)."""
    torch = pytest.importorskip("torch", reason="torch is not installed (the device machine's venv has it)")
    files = _mixed_files()[:4]
    want = mallat.Engine("cpu").decode_batch(files)
    kept = mallat.Engine("cuda").decode_batch(files, out="cuda")
    tensors = [torch.from_dlpack(a) for a in kept]
    del kept
    torch.cuda.synchronize()
    for tensor, image in zip(tensors, want):
        np.testing.assert_array_equal(tensor.cpu().numpy(), image)
    del tensors
    engine = mallat.Engine("cuda")
    free = []
    for _ in range(4):
        arrays = engine.decode_batch(files, out="cuda")
        del arrays
        free.append(torch.cuda.mem_get_info()[0])
    assert free[-1] >= free[1] - (64 << 20), free
