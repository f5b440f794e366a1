"""OpenJPEG's opj_decompress reads mallat.encode's bytes to the same samples:
raw codestreams and JP2 files, 1, 3 and 4 channels, 8 and 16 bits, signed."""

import shutil
import subprocess

import numpy as np
import pytest

import mallat
from conftest import random_image

OPJ = shutil.which("opj_decompress")


def opj_decode(data, tmp_path, suffix, output):
    source = tmp_path / ("in" + suffix)
    source.write_bytes(data)
    target = tmp_path / output
    run = subprocess.run([OPJ, "-i", str(source), "-o", str(target)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    return target


@pytest.mark.parametrize("dtype, channels, jp2, output", [
    (np.uint8, 1, False, "out.pgm"),
    (np.uint8, 3, True, "out.ppm"),
    (np.uint8, 4, True, "out.png"),
    (np.uint16, 3, False, "out.ppm"),
    (np.uint16, 1, True, "out.png"),
])
def test_opj_decompress_reads_our_bytes(tmp_path, dtype, channels, jp2, output):
    assert OPJ, "opj_decompress is missing (Debian: libopenjp2-tools)"
    shape = (41, 67) if channels == 1 else (41, 67, channels)
    image = random_image(shape, dtype, seed=channels)
    target = opj_decode(mallat.encode(image, jp2=jp2), tmp_path, ".jp2" if jp2 else ".j2k", output)
    np.testing.assert_array_equal(mallat.read_image(target), image)


@pytest.mark.parametrize("dtype", [np.int8, np.int16])
def test_opj_decompress_reads_signed_samples(tmp_path, dtype):
    assert OPJ, "opj_decompress is missing (Debian: libopenjp2-tools)"
    image = random_image((23, 29), dtype, seed=3)
    opj_decode(mallat.encode(image), tmp_path, ".j2k", "out.pgx")
    # opj_decompress names PGX output per component: out_0.pgx.
    np.testing.assert_array_equal(mallat.read_image(tmp_path / "out_0.pgx"), image)


def test_opj_decompress_reads_a_lossy_stream_as_we_do(tmp_path):
    assert OPJ, "opj_decompress is missing (Debian: libopenjp2-tools)"
    image = random_image((64, 80, 3), np.uint8, seed=4)
    data = mallat.encode(image, bpp=1, lossless=True)  # 5/3 cut: both decoders give the same samples
    target = opj_decode(data, tmp_path, ".j2k", "out.ppm")
    np.testing.assert_array_equal(mallat.read_image(target), mallat.decode(data))
