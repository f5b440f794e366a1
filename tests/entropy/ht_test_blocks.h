// Random code-blocks for the HT coder's tests: shapes from 1x1 to the
// extremes of A.6.1, Mb up to 31, magnitudes spread over all planes.
#pragma once

#include <cstdint>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "common/plane_view.h"

namespace mallat::entropy::ht_test {

struct Block {
  int w = 0, h = 0, mb = 0, fraction_bits = 0;
  std::vector<int32_t> v;
  PlaneView<const int32_t> view() const { return {v.data(), w, h, w}; }
  std::string describe() const {
    return std::to_string(w) + "x" + std::to_string(h) + " Mb=" + std::to_string(mb) +
           " F=" + std::to_string(fraction_bits);
  }
};

// `fraction_bits` up to the given count; Mb + F <= 31.
inline Block random_block(std::mt19937& rng, int max_fraction_bits) {
  static constexpr int kShapes[][2] = {{64, 64}, {32, 32}, {1, 1},  {1, 37},   {29, 3},  {5, 64},  {1024, 4},
                                       {4, 1024}, {17, 13}, {2, 2}, {3, 5},    {64, 63}, {128, 32}, {7, 1}};
  Block b;
  const auto& shape = kShapes[rng() % std::size(kShapes)];
  b.w = shape[0];
  b.h = shape[1];
  b.fraction_bits = max_fraction_bits > 0 ? static_cast<int>(rng() % static_cast<unsigned>(max_fraction_bits + 1)) : 0;
  const int max_mb = 31 - b.fraction_bits;
  // Mostly everyday Mb, some at the top of the range.
  b.mb = rng() % 4 == 0 ? max_mb - static_cast<int>(rng() % 3) : 1 + static_cast<int>(rng() % 16);
  b.v.resize(static_cast<size_t>(b.w) * b.h);
  std::uniform_real_distribution<double> u(0, 1);
  const int bits = b.mb + b.fraction_bits;
  const double zeros = u(rng) * 0.95;
  for (int32_t& x : b.v) {
    if (u(rng) < zeros) continue;
    const int top = static_cast<int>(u(rng) * bits);
    const auto m = static_cast<int32_t>(u(rng) * static_cast<double>((int64_t{1} << (top + 1)) - 1));
    x = rng() % 2 ? -m : m;
  }
  return b;
}

}  // namespace mallat::entropy::ht_test
