"""Shared fixtures of the Python tests (run by CTest, label `python`, with
PYTHONPATH at the build tree's python/ folder)."""

import os
import pathlib
import threading
import time

import numpy as np
import pytest


@pytest.fixture(scope="session")
def testdata():
    """The shared test data folder (MALLAT_TESTDATA_DIR, as CMake sets it for
    the C++ tests). A test that needs it fails, never skips, without it."""
    root = pathlib.Path(os.environ.get("MALLAT_TESTDATA_DIR",
                                       pathlib.Path(__file__).resolve().parents[3] / "shared" / "testdata"))
    assert (root / "images").is_dir(), f"test data missing: {root} (set MALLAT_TESTDATA_DIR)"
    return root


def random_image(shape, dtype, seed=0, bits=None):
    """Smooth structure plus noise over the whole range of `bits` (default
    the dtype's): every bit-plane and the sign bit take part."""
    info = np.iinfo(dtype)
    bits = bits or info.bits
    lo = info.min >> (info.bits - bits) if info.min < 0 else 0
    hi = info.max >> (info.bits - bits)
    rng = np.random.default_rng(seed)
    h, w = shape[:2]
    ramp = np.add.outer(np.arange(h) * 3, np.arange(w) * 5).astype(np.float64)
    if len(shape) == 3:
        ramp = ramp[:, :, None] + np.arange(shape[2]) * 17
    noise = rng.integers(-20, 21, size=shape)
    span = hi - lo + 1
    values = lo + np.mod((ramp * span / 400.0).astype(np.int64) + noise, span)
    return values.astype(dtype)


def psnr(a, b, peak):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return float("inf") if mse == 0 else 10 * np.log10(peak * peak / mse)


def assert_gil_released(work):
    """While another thread runs `work`, this one keeps running Python: the
    longest pause between its loop iterations is far below the work's time
    alone (with the GIL held it would be all of it)."""
    start = time.perf_counter()
    work()
    alone = time.perf_counter() - start
    worker = threading.Thread(target=work)
    worker.start()
    ticks = []
    while worker.is_alive():
        ticks.append(time.perf_counter())
    worker.join()
    longest = max(np.diff(ticks)) if len(ticks) > 1 else alone
    assert longest < alone / 3, f"longest pause {longest:.3f} s during {alone:.3f} s of work"
