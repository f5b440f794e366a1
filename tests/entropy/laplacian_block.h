// A 64x64 code-block of Laplacian-distributed integers with scale `b`, the
// shape of a high-pass subband: few bits per sample when b is small,
// near-lossless detail when it is large. For the block coder benchmarks and
// tests; `count` samples (64 x 64 by default) for other block sizes.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace mallat::entropy {

inline std::vector<int32_t> laplacian_block(double b, unsigned seed, size_t count = 64 * 64) {
  std::mt19937 rng(seed);
  std::exponential_distribution<double> mag(1.0 / b);
  std::vector<int32_t> v(count);
  for (auto& x : v) {
    // Clamped to int32's range: a huge scale (high Mb tests) can draw more.
    const auto m = static_cast<int32_t>(std::min(std::floor(mag(rng)), 2147483647.0));
    x = (rng() & 1) ? -m : m;
  }
  return v;
}

}  // namespace mallat::entropy
