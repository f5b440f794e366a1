"""mallat.numcodecs.Jpeg2000: Zarr arrays whose chunks are JPEG 2000."""

import os
import subprocess
import sys

import numcodecs
import numpy as np
import pytest
import zarr

import mallat
from conftest import psnr, random_image
from mallat.numcodecs import Jpeg2000


def test_registered_and_config_round_trip():
    codec = Jpeg2000(psnr=[40, 50], tile=(64, 64), levels=3)
    config = codec.get_config()
    assert config["id"] == "mallat_jpeg2000"
    assert numcodecs.get_codec(config) == codec
    assert "_threads" not in config


@pytest.mark.parametrize("dtype, shape, chunks", [
    (np.uint8, (100, 130, 3), (64, 64, 3)),    # edge chunks padded by Zarr
    (np.uint16, (90, 70), (32, 48)),
    (np.int16, (3, 40, 50), (1, 40, 25)),      # a volume: (1, h, w) chunks are 2-D images
])
def test_zarr_lossless_round_trip(tmp_path, dtype, shape, chunks):
    image = random_image(shape, dtype, seed=len(shape))
    z = zarr.open(str(tmp_path / "a.zarr"), mode="w", shape=shape, chunks=chunks, dtype=dtype,
                  compressor=Jpeg2000())
    z[...] = image
    again = zarr.open(str(tmp_path / "a.zarr"), mode="r")
    np.testing.assert_array_equal(again[...], image)
    np.testing.assert_array_equal(again[5:37, 11:60], image[5:37, 11:60])  # chunks decoded, then copied
    chunk = (tmp_path / "a.zarr" / ".".join(["0"] * len(shape))).read_bytes()
    assert chunk[:2] == b"\xff\x4f" and mallat.info(chunk)["reversible"]


def test_whole_chunks_decode_into_zarrs_array(monkeypatch):
    """Zarr hands a whole contiguous chunk's destination to decode(out=...):
    the samples go straight there."""
    image = np.stack([random_image((48, 40, 3), np.uint8, seed=s) for s in (6, 7)])
    z = zarr.array(image, chunks=(1, 48, 40, 3), compressor=Jpeg2000(), store=zarr.MemoryStore())
    outs = []
    decode = mallat.decode
    monkeypatch.setattr(mallat, "decode", lambda *a, **k: outs.append(k.get("out")) or decode(*a, **k))
    np.testing.assert_array_equal(z[...], image)
    assert len(outs) == 2 and all(o is not None and o.shape == (48, 40, 3) for o in outs)


def test_int32_labels_with_bits_and_dtype(tmp_path):
    labels = random_image((64, 64), np.int32, seed=3, bits=15)
    codec = Jpeg2000(bits=15, dtype="int32")
    z = zarr.array(labels, chunks=(32, 32), compressor=codec, store=zarr.MemoryStore())
    np.testing.assert_array_equal(z[...], labels)
    # Without `out` (a part of a chunk) the decoded int16 samples come back as int32.
    np.testing.assert_array_equal(z[3:9, 40:50], labels[3:9, 40:50])
    with pytest.raises(ValueError, match="dtype= too"):
        Jpeg2000(bits=15)


def test_lossy_chunks(tmp_path):
    image = random_image((128, 128, 3), np.uint8, seed=4)
    z = zarr.array(image, chunks=(64, 64, 3), compressor=Jpeg2000(psnr=38), store=zarr.MemoryStore())
    quality = psnr(z[...], image, 255)
    assert 36 < quality < 42
    assert z.nbytes_stored < image.nbytes / 2


def test_bad_options_fail_at_construction():
    with pytest.raises(ValueError, match="one of rate="):
        Jpeg2000(rate=10, psnr=40)


def test_an_existing_array_opens_through_the_entry_point(tmp_path):
    """A new process that never imports mallat.numcodecs reads the array:
    numcodecs finds the codec by its id through the package's entry point."""
    image = random_image((40, 40), np.uint8, seed=5)
    zarr.array(image, chunks=(20, 20), compressor=Jpeg2000(), store=str(tmp_path / "a.zarr"))
    np.save(tmp_path / "expected.npy", image)
    script = ("import sys, numpy, zarr; z = zarr.open(sys.argv[1], mode='r'); "
              "numpy.testing.assert_array_equal(z[...], numpy.load(sys.argv[2])); print(type(z.compressor))")
    run = subprocess.run([sys.executable, "-c", script, str(tmp_path / "a.zarr"), str(tmp_path / "expected.npy")],
                         capture_output=True, text=True, env=os.environ)
    assert run.returncode == 0, run.stderr
    assert "mallat.numcodecs.Jpeg2000" in run.stdout
