// A device Tier-1 job's quantised coefficients copied back to the host, for
// a code-block whose coded bytes overflowed its slot on the device and is
// coded again on the CPU from them (the same bytes: the CPU coder takes the
// indices the device quantised). Used by the whole-tile runner and by rate
// control's rounds on the device (device_ht_rate.h).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "common/plane_view.h"
#include "common/status.h"
#include "dwt/cuda/check.h"
#include "entropy/t1_device_job.h"

namespace mallat::codec::cuda {

// `job`'s samples among the device's `coefficients` into `samples` (row by
// row, its width apart); the view over them.
inline Result<PlaneView<const int32_t>> job_indices_to_host(const entropy::T1DeviceJob& job,
                                                            const int32_t* coefficients,
                                                            std::vector<int32_t>& samples) {
  samples.resize(size_t{job.width} * job.height);
  MALLAT_RETURN_IF_ERROR(dwt::cuda::check_cuda(
      cudaMemcpy2D(samples.data(), size_t{job.width} * sizeof(int32_t), coefficients + job.coefficient_offset,
                   entropy::job_stride(job) * sizeof(int32_t), size_t{job.width} * sizeof(int32_t), job.height,
                   cudaMemcpyDeviceToHost),
      "copying an overflowing code-block's indices back"));
  return PlaneView<const int32_t>{samples.data(), job.width, job.height, job.width};
}

}  // namespace mallat::codec::cuda
