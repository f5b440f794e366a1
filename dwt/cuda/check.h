// CUDA errors as mallat Status values (STYLE.md: errors are values at the
// backend boundary). Host-only; builds with the host compiler.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "common/status.h"

namespace mallat::dwt::cuda {

// Status(kDeviceError, "<what>: <cudaGetErrorString> (<code>)") or OK.
inline Status check_cuda(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return Status::Ok();
  return device_error(std::string(what) + ": " + cudaGetErrorString(err) + " (" +
                      std::to_string(static_cast<int>(err)) + ")");
}

// After a kernel launch: the launch's own error (bad configuration, no
// kernel image for this device) is reported by cudaGetLastError.
inline Status check_launch(const char* kernel) {
  return check_cuda(cudaGetLastError(), kernel);
}

}  // namespace mallat::dwt::cuda

#define MALLAT_CUDA_RETURN_IF_ERROR(call) \
  MALLAT_RETURN_IF_ERROR(::mallat::dwt::cuda::check_cuda((call), #call))
