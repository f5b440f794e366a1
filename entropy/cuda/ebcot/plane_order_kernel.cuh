// The order in which an EBCOT batch's threads take its blocks, by the
// bit-planes each block codes: a block of P planes codes 3P - 2 passes
// (D.3), and a warp's lanes code the same pass of their blocks together
// only where their blocks have the same number of passes. The host's order
// (T1DeviceEncoder::upload_jobs: by samples and Mb) is all it knows before
// the coefficients exist on the device; these kernels sort it again, stably,
// by the planes the coefficients need. Device code only; launched by
// entropy/cuda/t1_encode_launch.cu.
#pragma once

#include <cstdint>

#include "entropy/t1_device_job.h"

namespace mallat::entropy::cuda {

inline constexpr int kPlaneOrderBins = 33;       // 0..32 planes
inline constexpr int kPlaneOrderThreads = 256;   // one CUDA block sorts

// One warp a block: bins[i] = 32 - (the planes job order[i] codes), so
// that bin 0 holds the blocks of most planes. The planes are the bit width
// of the block's largest magnitude less its fraction bits, as
// encode_code_block_shared counts them.
__global__ void __launch_bounds__(256) t1_block_planes_kernel(const T1DeviceJob* jobs, const uint32_t* order,
                                                              uint32_t count, const int32_t* coefficients,
                                                              uint8_t* bins) {
  const uint32_t i = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const uint32_t lane = threadIdx.x % 32;
  if (i >= count) return;
  const T1DeviceJob job = jobs[order[i]];
  const int32_t* c = coefficients + job.coefficient_offset;
  const uint64_t stride = job_stride(job);
  uint32_t all = 0;
  for (uint32_t y = 0; y < job.height; ++y) {
    for (uint32_t x = lane; x < job.width; x += 32) {
      const int32_t v = c[y * stride + x];
      all |= v < 0 ? 0u - static_cast<uint32_t>(v) : static_cast<uint32_t>(v);
    }
  }
  for (int k = 16; k > 0; k /= 2) all |= __shfl_xor_sync(0xFFFFFFFFu, all, k);
  if (lane == 0) {
    const int width = 32 - __clz(static_cast<int>(all));
    int planes = width > job.fraction_bits ? width - job.fraction_bits : 0;
    // A pass limit leaves fewer planes to code: lanes of a warp then stop
    // together (3 passes a plane, the first plane's cleanup alone).
    const int limited = (job.pass_limit + 2) / 3;
    if (job.pass_limit > 0 && limited < planes) planes = limited;
    bins[i] = static_cast<uint8_t>(32 - planes);
  }
}

// One CUDA block of kPlaneOrderThreads: a stable counting sort of `order`
// by bins into `sorted` (each thread counts and then places a run of
// positions, the runs in order within each bin).
__global__ void __launch_bounds__(kPlaneOrderThreads) t1_order_by_planes_kernel(const uint32_t* order,
                                                                                const uint8_t* bins,
                                                                                uint32_t count,
                                                                                uint32_t* sorted) {
  __shared__ uint32_t place[kPlaneOrderBins][kPlaneOrderThreads];
  const uint32_t t = threadIdx.x;
  const uint32_t run = (count + kPlaneOrderThreads - 1) / kPlaneOrderThreads;
  const uint32_t begin = t * run < count ? t * run : count;
  const uint32_t end = begin + run < count ? begin + run : count;
  for (int b = 0; b < kPlaneOrderBins; ++b) place[b][t] = 0;
  for (uint32_t i = begin; i < end; ++i) ++place[bins[i]][t];
  __syncthreads();
  if (t == 0) {
    uint32_t next = 0;
    for (int b = 0; b < kPlaneOrderBins; ++b) {
      for (int k = 0; k < kPlaneOrderThreads; ++k) {
        const uint32_t n = place[b][k];
        place[b][k] = next;
        next += n;
      }
    }
  }
  __syncthreads();
  for (uint32_t i = begin; i < end; ++i) sorted[place[bins[i]][t]++] = order[i];
}

}  // namespace mallat::entropy::cuda
