"""Bad input gives a Python exception with the codec's message: a ValueError
(a subclass of mallat.Error) for bad arrays, options and streams, TypeError
for arguments of the wrong kind; never a crash."""

import numpy as np
import pytest

import mallat
from conftest import random_image

IMAGE = random_image((32, 40, 3), np.uint8)
DATA = mallat.encode(IMAGE)


@pytest.mark.parametrize("image, message", [
    (np.zeros((8, 8), np.float32), "dtype float32"),
    (np.zeros((8, 8), np.int64), "dtype int64"),
    (np.zeros((2, 8, 8, 3), np.uint8), "shape (2, 8, 8, 3)"),
    (np.zeros(8, np.uint8), "shape (8,)"),
    (np.zeros((0, 8), np.uint8), "empty"),
])
def test_bad_images(image, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        mallat.encode(image)


def test_sample_outside_bits_is_named():
    image = np.zeros((10, 12), np.uint16)
    image[7, 3] = 4096
    with pytest.raises(mallat.InvalidArgumentError, match="sample 4096 at row 7, column 3, channel 0"):
        mallat.encode(image, bits=12)


@pytest.mark.parametrize("options, error, message", [
    ({"bits": 17}, mallat.InvalidArgumentError, "bits=17"),
    ({"bits": 0}, mallat.InvalidArgumentError, "bits=0"),
    ({"rate": 10, "bpp": 1}, mallat.InvalidArgumentError, "one of rate=, bpp= and psnr="),
    ({"rate": [10, 20]}, mallat.InvalidArgumentError, "out of order"),
    ({"bpp": -1}, mallat.InvalidArgumentError, r"bpp=-1: each target must be a number >= 0"),
    ({"rate": [20, float("nan")]}, mallat.InvalidArgumentError, r"rate=\[20, nan\]"),
    ({"levels": 40}, ValueError, "resolutions"),
    ({"tile": (0, 8)}, mallat.InvalidArgumentError, "tile=0"),
    ({"threads": -1}, mallat.InvalidArgumentError, "threads=-1"),
    ({"levels": 2.5}, TypeError, "levels must be an integer"),
    ({"psnr": "high"}, TypeError, "psnr= must be a number"),
])
def test_bad_encode_options(options, error, message):
    with pytest.raises(error, match=message):
        mallat.encode(IMAGE, **options)


def test_int32_needs_bits():
    with pytest.raises(mallat.UnsupportedError, match="int32 images need bits="):
        mallat.encode(np.zeros((8, 8), np.int32))
    with pytest.raises(mallat.UnsupportedError, match="1..16"):
        mallat.encode(np.zeros((8, 8), np.int32), bits=20)


@pytest.mark.parametrize("data, error, message", [
    (b"", mallat.CorruptDataError, ""),
    (b"not a jpeg 2000 file", mallat.CorruptDataError, "SOC"),
    (DATA[:40], mallat.CorruptDataError, ""),
    (3.5, TypeError, "data must be bytes"),
])
def test_bad_streams(data, error, message):
    with pytest.raises(error, match=message):
        mallat.decode(data)
    with pytest.raises(error, match=message):
        mallat.info(data)


def test_truncated_tile_data_decodes_with_a_warning():
    with pytest.warns(mallat.DecodeWarning):
        image = mallat.decode(DATA[: len(DATA) * 2 // 3])
    assert image.shape == IMAGE.shape


@pytest.mark.parametrize("call", [
    lambda path: mallat.decode(path / "absent.j2k"),
    lambda path: mallat.info(path / "absent.j2k"),
    lambda path: mallat.read_image(path / "absent.png"),
    lambda path: mallat.write_image(path / "no-folder" / "x.png", IMAGE),
])
def test_missing_file_is_a_file_error_and_a_file_not_found_error(tmp_path, call):
    with pytest.raises(mallat.FileError, match="absent|no-folder") as caught:
        call(tmp_path)
    assert isinstance(caught.value, FileNotFoundError) and isinstance(caught.value, mallat.MissingFileError)


def test_unreadable_file_is_a_file_error_only(tmp_path):
    with pytest.raises(mallat.FileError) as caught:
        mallat.decode(tmp_path)  # a folder
    assert not isinstance(caught.value, FileNotFoundError)


@pytest.mark.parametrize("options, message", [
    ({"region": (0, 0, 33, 10)}, "region"),
    ({"region": (10, 10, 10, 20)}, "not a non-empty rectangle"),
    ({"region": (1, 2, 3)}, "region"),
    ({"components": 3}, "component 3 does not exist"),
    ({"components": []}, "no component"),
    ({"reduce": 9}, "reduce"),
    ({"layers": 0}, "layers=0"),
    ({"out": np.zeros((32, 40), np.uint8)}, "shape"),
    ({"out": np.zeros((32, 40, 3), np.int8)}, "does not hold component 0"),
    ({"out": np.broadcast_to(np.uint8(0), (32, 40, 3))}, "read-only"),
])
def test_bad_decode_options(options, message):
    with pytest.raises(ValueError, match=message):
        mallat.decode(DATA, **options)


def test_malformed_files_raise_or_decode(testdata):
    """The shared malformed files (fuzzer findings of other decoders): each
    either decodes or raises mallat.Error; the process survives. broken.jpc
    is left out: it decodes (with warnings), but its thousands of tiles
    make it by far the slowest; the C++ robustness tests cover it."""
    raised = 0
    for path in sorted((testdata / "malformed").iterdir()):
        if path.name == "broken.jpc":
            continue
        try:
            mallat.decode(path, threads=1)
        except mallat.Error as e:
            assert str(e), path
            raised += 1
    assert raised > 0


def test_warnings_are_one_per_decode():
    # Cut inside the packet data of a tiled stream: several tiles are missing.
    data = mallat.encode(IMAGE, tile=8)
    with pytest.warns(mallat.DecodeWarning) as caught:
        mallat.decode(data[: len(data) // 4])
    assert len(caught) == 1
    assert "more" in str(caught[0].message)
