// The launcher of the HT plane statistics' gather
// (entropy/cuda/ht/statistics_kernel.cuh) for rate control by estimates
// on the device runner (device_ht_rate.h). Host declaration only.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "common/status.h"
#include "entropy/ht/compact_plane_statistics.h"
#include "entropy/t1_device_job.h"

namespace mallat::codec::cuda {

// Each of `count` jobs' statistics (device memory: the jobs, the
// `coefficient_count` values they read, `out` of `count` x layout.stride()
// bytes, entropy/ht/compact_plane_statistics.h) on `stream`; a
// job the gather cannot take sets bits of *refused (kHtStatistics* of the
// kernel's header), which the caller clears first.
Status launch_ht_statistics(const entropy::T1DeviceJob* jobs, size_t count, const int32_t* coefficients,
                            uint64_t coefficient_count, entropy::HtCompactLayout layout, unsigned char* out,
                            uint32_t* refused, cudaStream_t stream);

}  // namespace mallat::codec::cuda
