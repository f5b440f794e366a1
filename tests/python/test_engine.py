"""mallat.Engine: one object's pools (and device) for many calls; batches in
and out in order, with each item's error raised or returned in its place;
the same bytes and arrays as the module's functions, on any device."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import mallat
from conftest import assert_gil_released, random_image

IMAGES = [random_image((40 + 8 * i, 56) + ((3,) if i % 2 else ()), np.uint8 if i % 3 else np.uint16, seed=i)
          for i in range(6)]


def test_engine_codes_as_the_module_functions():
    engine = mallat.Engine("cpu", threads=2)
    assert (engine.device, engine.threads) == ("cpu", 2)
    for image, options in zip(IMAGES, [{}, {"bpp": 2}, {"jp2": True, "ht": True}, {"psnr": 40}, {"tile": 32},
                                       {"levels": 2, "lossless": False}]):
        data = engine.encode(image, **options)
        assert data == mallat.encode(image, threads=1, **options)
        np.testing.assert_array_equal(engine.decode(data), mallat.decode(data))
    data = engine.encode(IMAGES[1])
    np.testing.assert_array_equal(engine.decode(data, region=(4, 8, 20, 30), components=[2, 0]),
                                  IMAGES[1][4:20, 8:30][:, :, [2, 0]])


@pytest.mark.parametrize("device", ["cpu", "auto"])
def test_batches_keep_the_order_and_equal_single_calls(device):
    engine = mallat.Engine(device)
    encoded = engine.encode_batch(IMAGES, psnr=45)
    assert encoded == [mallat.encode(image, psnr=45) for image in IMAGES]
    decoded = engine.decode_batch(encoded)
    assert len(decoded) == len(IMAGES)
    for got, data in zip(decoded, encoded):
        np.testing.assert_array_equal(got, mallat.decode(data))
    lossless = engine.encode_batch(IMAGES)
    for got, image in zip(engine.decode_batch([bytearray(d) for d in lossless]), IMAGES):
        np.testing.assert_array_equal(got, image)
    for got, data in zip(engine.decode_batch(lossless, reduce=1, components=0), lossless):
        np.testing.assert_array_equal(got, mallat.decode(data, reduce=1, components=0))
    assert engine.encode_batch([]) == [] and engine.decode_batch([]) == []


def test_batch_errors_raised_or_returned_in_place(tmp_path):
    engine = mallat.Engine("cpu")
    good = engine.encode(IMAGES[0])
    items = [good, b"not a jpeg 2000 file", tmp_path / "missing.jp2", good[: len(good) // 3] + b"\0" * 4, good]
    with pytest.raises(mallat.CorruptDataError):
        engine.decode_batch(items)
    with pytest.warns(mallat.DecodeWarning, match="item 3"):
        results = engine.decode_batch(items, errors="return")
    assert isinstance(results[1], mallat.CorruptDataError)
    assert isinstance(results[2], mallat.MissingFileError) and isinstance(results[2], FileNotFoundError)
    for i in (0, 4):
        np.testing.assert_array_equal(results[i], IMAGES[0])

    twelve = [random_image((24, 40), np.uint16, seed=s, bits=12) for s in range(2)]
    too_big = np.full((8, 8), 5000, np.uint16)
    with pytest.raises(mallat.InvalidArgumentError, match="sample 5000"):
        engine.encode_batch([twelve[0], too_big], bits=12)
    results = engine.encode_batch([twelve[0], too_big, twelve[1]], bits=12, errors="return")
    assert isinstance(results[1], mallat.InvalidArgumentError) and "sample 5000" in str(results[1])
    assert results[0] == mallat.encode(twelve[0], bits=12) and results[2] == mallat.encode(twelve[1], bits=12)


@pytest.mark.parametrize("call, message", [
    (lambda: mallat.Engine("gpu"), "device='gpu'"),
    (lambda: mallat.Engine("cpu", threads=-1), "threads=-1"),
    (lambda: mallat.Engine("cpu").decode_batch([], errors="ignore"), "errors='ignore'"),
    (lambda: mallat.Engine("cpu").encode_batch([np.zeros((4, 4), np.float32)]), "image 0 has dtype float32"),
])
def test_bad_engine_arguments(call, message):
    with pytest.raises(mallat.InvalidArgumentError, match=message):
        call()


def test_engine_options_are_keyword_only():
    with pytest.raises(TypeError):
        mallat.Engine("cpu", 4)
    with pytest.raises(TypeError):
        mallat.Engine("cpu").decode_batch([], "return")


def test_the_gil_is_released_during_a_batch():
    engine = mallat.Engine("cpu", threads=1)
    images = [random_image((384, 384, 3), np.uint8, seed=s) for s in range(4)]
    assert_gil_released(lambda: engine.encode_batch(images))


def test_one_engine_shared_by_threads_gives_the_sequential_results():
    engine = mallat.Engine("cpu", threads=2)
    expected = [mallat.encode(image) for image in IMAGES]
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda i: (engine.encode(IMAGES[i]), engine.decode_batch([expected[i]])[0]),
                            range(len(IMAGES))))
    for (data, decoded), want, image in zip(got, expected, IMAGES):
        assert data == want
        np.testing.assert_array_equal(decoded, image)


@pytest.mark.skipif(mallat._mallat.cuda_device_count() > 0, reason="a CUDA device is here: test_device_arrays.py runs")
def test_device_output_without_a_device_is_a_device_error():
    """out="cuda" with no device (or no CUDA in the build) raises DeviceError
    saying why, for an image the engine would keep on the device as for one
    copied up from the host; the host output is unchanged."""
    engine = mallat.Engine("cpu")
    files = engine.encode_batch(IMAGES[:2])
    for components in (None, [0]):
        with pytest.raises(mallat.DeviceError, match="device output|CUDA"):
            engine.decode_batch(files, components=components, out="cuda")
    results = engine.decode_batch(files, out="cuda", errors="return")
    assert all(isinstance(r, mallat.DeviceError) for r in results)
    np.testing.assert_array_equal(engine.decode_batch(files)[1], IMAGES[1])
    # One image: the same error, from the engine and the module.
    with pytest.raises(mallat.DeviceError, match="device output|CUDA"):
        engine.decode(files[0], out="cuda")
    with pytest.raises(mallat.DeviceError, match="device output|CUDA"):
        mallat.decode(files[0], out="cuda")


def test_decode_out_is_an_array_or_cuda():
    """decode's out: a numpy array, None or "cuda" (whole images only)."""
    engine = mallat.Engine("cpu")
    data = engine.encode(IMAGES[0])
    with pytest.raises(mallat.InvalidArgumentError, match="'cuda'"):
        engine.decode(data, out="gpu")
    with pytest.raises(mallat.InvalidArgumentError, match="no region"):
        engine.decode(data, out="cuda", region=(0, 0, 8, 8))
    with pytest.raises(TypeError, match="numpy array or 'cuda'"):
        engine.decode(data, out=[1, 2])
