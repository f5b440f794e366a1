// Which code-block of a Tier-1 launch a thread codes, for every coder's
// kernels (entropy/cuda/ebcot/, entropy/cuda/ht/): one block per thread, the
// first `blocks_per_warp` lanes of each warp working (entropy/cuda/ebcot/
// encode_kernel.cuh says why), thread t taking the launch's t-th block in
// its work order. Device code only.
#pragma once

#include <cstdint>

namespace mallat::entropy::cuda {

inline constexpr uint32_t kNoBlock = ~uint32_t{0};

// The calling thread's index t among the launch's `count` blocks, or
// kNoBlock for a thread without one.
__device__ inline uint32_t thread_block(uint32_t blocks_per_warp, uint32_t count) {
  const uint32_t lane = threadIdx.x % 32;
  const uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (lane >= blocks_per_warp) return kNoBlock;
  const uint32_t t = warp * blocks_per_warp + lane;
  return t < count ? t : kNoBlock;
}

}  // namespace mallat::entropy::cuda
