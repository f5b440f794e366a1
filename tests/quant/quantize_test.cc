#include "quant/quantize.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
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

TEST(Quantize, StridedRegion) {
  // A 2x2 region of a 4-wide plane goes to a 2-wide one; nothing else is read.
  const std::vector<float> in = {9, 9, 9, 9, 9, 1.5f, -2.5f, 9, 9, 3.5f, 0.2f, 9};
  std::vector<int32_t> out(4, -99);
  quantize_dead_zone(PlaneView<const float>{in.data() + 5, 2, 2, 4}, 1.0, 10,
                     PlaneView<int32_t>{out.data(), 2, 2, 2});
  EXPECT_EQ(out, (std::vector<int32_t>{1, -2, 3, 0}));
}

// The squared error of mid-point reconstruction when bit-planes p.. are
// known, computed sample by sample as E.1.1.2 describes.
double brute_error(const std::vector<float>& y, double delta, const std::vector<int32_t>& q, int p) {
  double sum = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    const double v = std::fabs(y[i]) / delta;
    const uint32_t m = static_cast<uint32_t>(std::abs(q[i]));
    const uint32_t kept = m >> p << p;
    const double r = kept == 0 ? 0.0 : kept + (p > 0 ? std::ldexp(1.0, p - 1) : 0.5);
    sum += (v - r) * (v - r);
  }
  return sum;
}

TEST(Quantize, BitplaneDistortionsMatchBruteForce) {
  std::mt19937 rng(7);
  std::normal_distribution<float> noise(0.0f, 20.0f);
  std::vector<float> y(64 * 16);
  for (float& v : y) v = noise(rng);
  const double delta = 0.37;
  const int planes = 8;
  std::vector<int32_t> q(y.size());
  BitplaneDistortion d;
  quantize_dead_zone(PlaneView<const float>{y.data(), 64, 16, 64}, delta, 12,
                     PlaneView<int32_t>{q.data(), 64, 16, 64}, &d);
  int32_t largest = 0;
  for (int32_t v : q) largest = std::max(largest, std::abs(v));
  ASSERT_GE(largest, 1 << (planes - 1));   // sigma 20 / 0.37: the largest is 128..255
  ASSERT_LT(largest, 1 << planes);
  ASSERT_EQ(d.significance.size(), static_cast<size_t>(planes));
  EXPECT_NEAR(d.total, brute_error(y, delta, q, 40), 1e-6 * d.total);
  // Error after plane p = error before it minus what plane p removes.
  double error = d.total;
  for (int p = planes - 1; p >= 0; --p) {
    error -= d.significance[p] + d.refinement[p];
    EXPECT_NEAR(error, brute_error(y, delta, q, p), 1e-6 * d.total) << "plane " << p;
    EXPECT_EQ(d.refinement[planes - 1], 0.0);
  }
}

}  // namespace
}  // namespace mallat::quant
