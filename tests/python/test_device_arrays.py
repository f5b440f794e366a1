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


def test_torch_takes_them_and_gives_them():
    torch = pytest.importorskip("torch", reason="torch is not installed (the device machine's venv has it)")
    engine = mallat.Engine("cuda")
    files = engine.encode_batch(IMAGES)
    for array, image in zip(engine.decode_batch(files, out="cuda"), IMAGES):
        tensor = torch.from_dlpack(array)
        assert tensor.is_cuda
        np.testing.assert_array_equal(tensor.cpu().numpy(), image)
        assert mallat.encode(tensor) == mallat.encode(image)
