#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "entropy/ebcot/cpu_samples.h"
#include "entropy/ebcot/passes.h"

namespace mallat::entropy {
namespace {

// The CPU decoder's column-wise write of the decoded samples against the
// plain loop of passes.h, on states with random words and magnitudes (any
// significance, any sign, magnitudes up to 32 bits), for every width and
// stripe remainder around the four-column groups, into rows wider than the
// block (the bytes beside the block must stay untouched).
TEST(Tier1Samples, ColumnWiseWriteMatchesThePlainLoop) {
  std::mt19937 rng(7);
  for (int h = 1; h <= 13; ++h) {
    for (int w = 1; w <= 13; ++w) {
      detail::T1State s;
      s.reset(w, h);
      for (auto& word : s.column_storage) word = static_cast<uint32_t>(rng());
      for (auto& mag : s.magnitude_storage) mag = (rng() & 1) ? static_cast<uint32_t>(rng()) : rng() & 0xFF;
      const ptrdiff_t stride = w + 3;
      std::vector<int32_t> plain(static_cast<size_t>(stride) * h, 77);
      std::vector<int32_t> fast(plain);
      detail::write_decoded_samples(s, plain.data(), stride);
      detail::write_decoded_samples_by_columns(s, fast.data(), stride);
      ASSERT_EQ(fast, plain) << w << "x" << h;
    }
  }
}

}  // namespace
}  // namespace mallat::entropy
