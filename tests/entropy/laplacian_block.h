// A 64x64 code-block of Laplacian-distributed integers with scale `b`, the
// shape of a high-pass subband: few bits per sample when b is small,
// near-lossless detail when it is large. For the block coder benchmarks and
// tests; `count` samples (64 x 64 by default) for other block sizes.
#pragma once

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
    const auto m = static_cast<int32_t>(std::floor(mag(rng)));
    x = (rng() & 1) ? -m : m;
  }
  return v;
}

}  // namespace mallat::entropy
