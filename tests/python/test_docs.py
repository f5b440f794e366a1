"""docs/PYTHON.md's Python examples and the README's, run in order in one
namespace (as a reader would type them), in a folder holding photo.png (a
480 x 640 RGB image) and frames.dcm (three 12-bit HTJ2K frames): every
example runs and its asserts hold."""

import os
import pathlib
import re

import numpy as np
import pytest

import mallat
from conftest import random_image
from test_pydicom import HT_LOSSLESS, dicom_file

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Debian's zarr and numcodecs with its numpy: not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def python_blocks(path):
    return re.findall(r"^```python\n(.*?)^```", path.read_text(), flags=re.M | re.S)


@pytest.mark.parametrize("page", ["docs/PYTHON.md", "README.md"])
def test_examples_run(page, tmp_path, monkeypatch):
    blocks = python_blocks(ROOT / page)
    assert blocks, f"{page} has no Python example"
    monkeypatch.chdir(tmp_path)
    mallat.write_image("photo.png", random_image((480, 640, 3), np.uint8, seed=3))
    frames = [random_image((64, 80), np.uint16, seed=s, bits=12) for s in range(3)]
    dicom_file(frames, HT_LOSSLESS, 12, "MONOCHROME2", ht=True).save_as("frames.dcm")
    namespace = {"__name__": "__docs__"}
    for block in blocks:
        exec(compile(block, f"{page} example", "exec"), namespace)
    assert os.listdir(tmp_path)
