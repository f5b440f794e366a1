// Arrays in a CUDA device's memory for Python, exchanged through DLPack
// (the data API standard's __dlpack__ and __dlpack_device__), so that
// torch.from_dlpack, cupy.from_dlpack and others take them as they are; and
// the samples of another library's device tensor copied to the host for the
// encoder. Without CUDA in the build every function raises DeviceError.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace mallat::python {

// DeviceArray (to_device's result), cuda_device_count() and
// host_array_from_dlpack(capsule) in the module.
void bind_device_arrays(pybind11::module_& m);

// A DeviceArray over a decode's raster in device memory (the engine's
// DecodeResult::device_raster), owning it without a copy: uint8 of `shape`
// in C order, (height, width, components) or (height, width).
pybind11::object device_array_of_raster(std::shared_ptr<uint8_t> raster, std::vector<int64_t> shape);

}  // namespace mallat::python
