"""DLPack without a device: what encode reads from an object exporting
__dlpack__ (the host copy of its samples, here from numpy's CPU capsules),
and what decode_batch(out=...) refuses. The device side is
test_device_arrays.py (label gpu)."""

import numpy as np
import pytest

import mallat
from mallat import _mallat
from conftest import random_image


class CudaLooking:
    """A CPU tensor that says it is on the device, to take encode's device
    path (host_array_from_dlpack reads the capsule's own device type)."""

    def __init__(self, array):
        self.array = array

    def __dlpack_device__(self):
        return (2, 0)

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__()


@pytest.mark.parametrize("dtype, shape", [(np.uint8, (20, 30, 3)), (np.int16, (17, 9)), (np.uint16, (8, 8, 4))])
def test_samples_from_a_dlpack_capsule(dtype, shape):
    image = random_image(shape, dtype, seed=2)
    np.testing.assert_array_equal(_mallat.host_array_from_dlpack(image.__dlpack__()), image)
    assert mallat.encode(CudaLooking(image)) == mallat.encode(image)


def test_bad_capsules():
    with pytest.raises(mallat.InvalidArgumentError, match="not in C order"):
        _mallat.host_array_from_dlpack(np.zeros((8, 6), np.uint8).T.__dlpack__())
    with pytest.raises(mallat.InvalidArgumentError, match="dtype"):
        _mallat.host_array_from_dlpack(np.zeros((8, 6), np.float32).__dlpack__())
    with pytest.raises(mallat.InvalidArgumentError, match="1 dimensions"):
        _mallat.host_array_from_dlpack(np.zeros(8, np.uint8).__dlpack__())
    capsule = np.zeros((4, 4), np.uint8).__dlpack__()
    _mallat.host_array_from_dlpack(capsule)
    with pytest.raises(mallat.InvalidArgumentError, match="unconsumed"):
        _mallat.host_array_from_dlpack(capsule)


def test_out_is_checked():
    with pytest.raises(mallat.InvalidArgumentError, match="out='gpu'"):
        mallat.Engine("cpu").decode_batch([], out="gpu")
