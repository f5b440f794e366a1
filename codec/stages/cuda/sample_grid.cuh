// The launch shape of the device runner's sample kernels (forward_kernels.cu,
// inverse_kernels.cu): blocks of kThreads threads, each thread striding over
// the samples, the grid capped where more blocks would only queue.
#pragma once

#include <cstdint>

namespace mallat::codec::cuda {

inline constexpr int kThreads = 256;

inline int blocks_for(uint64_t count) {
  const uint64_t b = (count + kThreads - 1) / kThreads;
  return static_cast<int>(b < 65535 * 16 ? b : 65535 * 16);
}

}  // namespace mallat::codec::cuda
