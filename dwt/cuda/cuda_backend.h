// Host-only entry points of the CUDA DWT backend; builds without nvcc.
// Implemented in dwt/cuda/*.cu, compiled only when MALLAT_HAVE_CUDA is set.
#pragma once

#include <memory>
#include <string>

#include "common/status.h"
#include "dwt/dwt.h"

namespace mallat::dwt::cuda {

// Number of CUDA devices, or an error naming the cudaGetDeviceCount result
// (e.g. 35, "CUDA driver version is insufficient") when there are none.
Result<int> device_count();

// A one-line description: the device's name, compute capability and SM count
// ("NAME (sm_90, 132 SMs)"), or why there is none.
std::string device_status();

struct CudaBackendOptions {
  // Fill the device buffers with 0x7F bytes (int32 2139062143, float 3.4e38)
  // before every batch, so that a sample no kernel wrote shows in tests.
  bool poison_device_buffers = false;
};

// The backend on device 0, or kDeviceError saying why there is none.
Result<std::unique_ptr<Backend>> make_cuda_backend(const CudaBackendOptions& options = {});

}  // namespace mallat::dwt::cuda
