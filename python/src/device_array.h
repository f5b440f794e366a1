// Arrays in a CUDA device's memory for Python, exchanged through DLPack
// (the data API standard's __dlpack__ and __dlpack_device__), so that
// torch.from_dlpack, cupy.from_dlpack and others take them as they are; and
// the samples of another library's device tensor copied to the host for the
// encoder. Without CUDA in the build every function raises DeviceError.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

namespace mallat::python {

// DeviceArray (to_device's result), cuda_device_count() and
// host_array_from_dlpack(capsule) in the module.
void bind_device_arrays(pybind11::module_& m);

}  // namespace mallat::python
