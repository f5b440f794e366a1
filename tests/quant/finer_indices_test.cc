#include "quant/finer_indices.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

#include "quant/quantize.h"

namespace mallat::quant {
namespace {

// Indices with F = 2 fraction bits at Delta, taken to Delta / 2^1/2,
// against quantising the coefficients at Delta / 2^1/2 itself: within one
// fraction step of the finer interval (the nominal interval's middle
// scaled), 0 stays 0, the sign is kept, and the clip holds.
TEST(FinerIndices, WithinAFractionStepOfQuantisingFiner) {
  std::mt19937 random(3);
  std::vector<float> y(4096);
  for (float& v : y) {
    const double magnitude = std::ldexp(static_cast<double>(random() % 100000) / 100000.0, random() % 12);
    v = static_cast<float>((random() % 2 ? -1 : 1) * magnitude);
  }
  const double delta = 0.75, factor = std::sqrt(2.0);
  constexpr int kBits = 14, kF = 2;
  std::vector<int32_t> nominal(y.size()), finer(y.size()), taken(y.size());
  const PlaneView<const float> in{y.data(), 64, 64, 64};
  quantize_dead_zone(in, delta, kBits, PlaneView<int32_t>{nominal.data(), 64, 64, 64}, kF);
  quantize_dead_zone(in, delta / factor, kBits + 1, PlaneView<int32_t>{finer.data(), 64, 64, 64}, kF);
  finer_indices(PlaneView<const int32_t>{nominal.data(), 64, 64, 64}, factor, kBits + 1 + kF,
                PlaneView<int32_t>{taken.data(), 64, 64, 64});
  for (size_t i = 0; i < y.size(); ++i) {
    if (nominal[i] == 0) {
      EXPECT_EQ(taken[i], 0) << i;
      continue;
    }
    EXPECT_EQ(taken[i] < 0, nominal[i] < 0) << i;
    EXPECT_LE(std::abs(taken[i] - finer[i]), 1) << i << ": " << y[i];
  }
  // In place, and clipped below 2^magnitude_bits.
  std::vector<int32_t> big = {(1 << 10) - 1, -((1 << 10) - 1), 3, -3, 1};
  const PlaneView<int32_t> at{big.data(), 5, 1, 5};
  finer_indices(at, factor, 10, at);
  EXPECT_EQ(big, (std::vector<int32_t>{(1 << 10) - 1, -((1 << 10) - 1), 4, -4, 2}));
}

// The lanes (AVX2 where the CPU has it) against finer_index one at a
// time: the same indices, over magnitudes of every bit length up to the
// clip, ragged row ends and a view into a wider plane.
TEST(FinerIndices, LanesEqualThePlainOnes) {
  std::mt19937 random(9);
  for (const int bits : {4, 12, 20, 31}) {
    for (const double factor : {1.4142135623730951, 1.41, 1.4152}) {
      constexpr int64_t kStride = 77;
      std::vector<int32_t> in(kStride * 9), fast(in.size(), 7), plain(in.size(), 7);
      for (int32_t& q : in) {
        const int length = static_cast<int>(random() % static_cast<unsigned>(bits + 1));
        const auto m = static_cast<int32_t>(random() & ((length == 31 ? 0x7fffffffu : (1u << length) - 1)));
        q = random() % 2 ? -m : m;
      }
      const PlaneView<const int32_t> view{in.data() + 2, 71, 9, kStride};
      finer_indices(view, factor, bits, PlaneView<int32_t>{fast.data() + 2, 71, 9, kStride});
      finer_indices_reference(view, factor, bits, PlaneView<int32_t>{plain.data() + 2, 71, 9, kStride});
      EXPECT_EQ(fast, plain) << bits << " bits, factor " << factor;
    }
  }
}

}  // namespace
}  // namespace mallat::quant
