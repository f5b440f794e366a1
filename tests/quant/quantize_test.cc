#include "quant/quantize.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace mallat::quant {
namespace {

TEST(Quantize, DeadZone) {
  // E.1.1: q = sign(y) floor(|y| / Delta); the zero bin is twice as wide.
  const std::vector<float> in = {0.0f, 0.49f, -0.49f, 1.0f, -1.0f, 2.99f, -2.99f, 3.0f, 1000.0f, -7.5f};
  std::vector<int32_t> out(in.size());
  const auto e = quantize_dead_zone(PlaneView<const float>{in.data(), 10, 1, 10}, 0.5, 8,
                                    PlaneView<int32_t>{out.data(), 10, 1, 10});
  const std::vector<int32_t> expected = {0, 0, 0, 2, -2, 5, -5, 6, 255, -15};
  EXPECT_EQ(out, expected);
  EXPECT_EQ(e.clipped, 1);   // 1000 / 0.5 = 2000 does not fit 8 bit-planes
}

// The widest lanes (AVX2 where the CPU has it) against the plain loops:
// the same indices, clipped count and energy to the bit, over widths that
// leave a ragged end of vector lanes, a row in two pieces, fraction bits,
// clipping, infinities, NaN and signed zeros.
TEST(Quantize, BestLoopsEqualThePlainOnes) {
  std::mt19937 rng(29);
  std::normal_distribution<float> value(0.0f, 40.0f);
  const float odd[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-40f, -3e38f};
  for (const int64_t w : {1, 7, 8, 9, 31, 64, 1030}) {
    for (const int fraction : {0, 2, 8}) {
      const int64_t h = 5, stride = w + 3;
      std::vector<float> plane(static_cast<size_t>(stride * h));
      for (float& v : plane) v = value(rng);
      for (size_t i = 0; i < std::size(odd); ++i) plane[rng() % plane.size()] = odd[i];
      const PlaneView<const float> in{plane.data() + 1, w, h, stride};
      std::vector<int32_t> best(static_cast<size_t>(w * h)), plain(best.size());
      const auto eb = quantize_dead_zone(in, 0.37, 6, PlaneView<int32_t>{best.data(), w, h, w}, fraction,
                                         QuantizeLoops::kBest);
      const auto ep = quantize_dead_zone(in, 0.37, 6, PlaneView<int32_t>{plain.data(), w, h, w}, fraction,
                                         QuantizeLoops::kPlain);
      EXPECT_EQ(best, plain) << "width " << w << ", F " << fraction;
      EXPECT_EQ(eb.clipped, ep.clipped) << "width " << w << ", F " << fraction;
      EXPECT_GT(ep.clipped, 0);
      // Bit for bit (NaN's energy is NaN in both).
      EXPECT_EQ(0, std::memcmp(&eb.energy, &ep.energy, sizeof eb.energy)) << "width " << w << ", F " << fraction;
    }
  }
}

TEST(Quantize, StridedRegion) {
  // A 2x2 region of a 4-wide plane goes to a 2-wide one; nothing else is read.
  const std::vector<float> in = {9, 9, 9, 9, 9, 1.5f, -2.5f, 9, 9, 3.5f, 0.2f, 9};
  std::vector<int32_t> out(4, -99);
  quantize_dead_zone(PlaneView<const float>{in.data() + 5, 2, 2, 4}, 1.0, 10,
                     PlaneView<int32_t>{out.data(), 2, 2, 2});
  EXPECT_EQ(out, (std::vector<int32_t>{1, -2, 3, 0}));
}

// Fraction bits: the index bits are those of F = 0, the bits below are the
// fraction of |y| / Delta; the energy is the sum of (|y| / Delta)^2.
TEST(Quantize, InPlaceGivesWhatASeparateOutputGives) {
  // The encoder's tile planes turn from floats into indices in their own
  // storage: a strided region of a plane, with fraction bits and clipping.
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> value(-3000.0f, 3000.0f);
  const int64_t stride = 40, w = 33, h = 17;
  std::vector<float> plane(static_cast<size_t>(stride * h));
  for (float& v : plane) v = value(rng);
  const PlaneView<const float> region{plane.data() + 3, w, h, stride};
  std::vector<int32_t> separate(static_cast<size_t>(w * h));
  const auto e = quantize_dead_zone(region, 0.75, 11, PlaneView<int32_t>{separate.data(), w, h, w}, 5);
  static_assert(sizeof(float) == sizeof(int32_t));
  std::vector<int32_t> storage(plane.size());
  std::memcpy(storage.data(), plane.data(), plane.size() * 4);
  const auto in_place =
      quantize_dead_zone(PlaneView<const float>{reinterpret_cast<const float*>(storage.data()) + 3, w, h, stride},
                         0.75, 11, PlaneView<int32_t>{storage.data() + 3, w, h, stride}, 5);
  EXPECT_EQ(in_place.clipped, e.clipped);
  EXPECT_GT(e.clipped, 0);
  EXPECT_EQ(in_place.energy, e.energy);
  for (int64_t y = 0; y < h; ++y) {
    for (int64_t x = 0; x < w; ++x) ASSERT_EQ(storage[y * stride + 3 + x], separate[y * w + x]) << x << "," << y;
  }
}

TEST(Quantize, FractionBitsAndEnergy) {
  std::mt19937 rng(7);
  std::normal_distribution<float> noise(0.0f, 20.0f);
  std::vector<float> y(64 * 16);
  for (float& v : y) v = noise(rng);
  const double delta = 0.37;
  std::vector<int32_t> q(y.size()), fine(y.size());
  const auto e0 = quantize_dead_zone(PlaneView<const float>{y.data(), 64, 16, 64}, delta, 12,
                                     PlaneView<int32_t>{q.data(), 64, 16, 64});
  for (int f : {1, 5, 8}) {
    const auto e = quantize_dead_zone(PlaneView<const float>{y.data(), 64, 16, 64}, delta, 12,
                                      PlaneView<int32_t>{fine.data(), 64, 16, 64}, f);
    double energy = 0;
    for (size_t i = 0; i < y.size(); ++i) {
      const double v = std::fabs(y[i]) / delta;
      energy += v * v;
      ASSERT_EQ(fine[i] < 0 ? -((-fine[i]) >> f) : fine[i] >> f, q[i]) << i;
      ASSERT_EQ(fine[i] < 0, q[i] < 0 || (q[i] == 0 && y[i] < 0 && fine[i] != 0));
      const double frac = std::ldexp(static_cast<double>(std::abs(fine[i]) & ((1 << f) - 1)), -f);
      ASSERT_NEAR(frac, v - std::floor(v), std::ldexp(1.0, -f) + 1e-5) << i;
    }
    EXPECT_NEAR(e.energy, energy, 1e-5 * energy);
    EXPECT_EQ(e.energy, e0.energy);
    EXPECT_EQ(e.clipped, 0);
  }
  // Clipping keeps the index below 2^Mb with the fraction bits all ones.
  const float big[2] = {1000.0f, -1000.0f};
  int32_t out[2];
  const auto e = quantize_dead_zone(PlaneView<const float>{big, 2, 1, 2}, 1.0, 8, PlaneView<int32_t>{out, 2, 1, 2}, 3);
  EXPECT_EQ(e.clipped, 2);
  EXPECT_EQ(out[0], (1 << 11) - 1);
  EXPECT_EQ(out[1], -((1 << 11) - 1));
}

}  // namespace
}  // namespace mallat::quant
