#include "quant/step_size.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace mallat::quant {
namespace {

TEST(StepSize, SubbandOrder) {
  // A.6.4: LL, then (HL, LH, HH) per level.
  EXPECT_EQ(subband_count(0), 1);
  EXPECT_EQ(subband_count(5), 16);
  const int expected[] = {0, 1, 2, 3, 1, 2, 3};
  for (int i = 0; i < 7; ++i) EXPECT_EQ(subband_orientation(i), expected[i]) << i;
}

TEST(StepSize, ReversibleExponents) {
  // 8-bit input, 2 levels: LL 8, HL/LH 9, HH 10 (Table E.1 gains 0, 1, 1, 2).
  auto steps = reversible_step_sizes(8, 2);
  ASSERT_EQ(steps.size(), 7u);
  const int expected[] = {8, 9, 9, 10, 9, 9, 10};
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(steps[i].exponent, expected[i]) << i;
    EXPECT_EQ(steps[i].mantissa, 0) << i;
  }
  // E-2 with the usual 2 guard bits: an 8-bit HH band has 11 magnitude planes.
  EXPECT_EQ(magnitude_bitplanes(2, steps[3].exponent), 11);
}

}  // namespace
}  // namespace mallat::quant

namespace mallat::quant {
namespace {

TEST(StepSize, ValueRoundTrip) {
  // E-3: the signalled step is the largest representable one not above the
  // wanted value, within one mantissa unit (2^-11 relative).
  for (double delta : {0.001, 0.0371, 0.25, 0.5, 1.0, 1.7, 3.3, 100.0}) {
    StepSize s;
    ASSERT_TRUE(step_for_value(delta, 10, &s)) << delta;
    EXPECT_GE(s.mantissa, 0);
    EXPECT_LT(s.mantissa, 2048);
    const double back = step_value(s, 10);
    EXPECT_LE(back, delta) << delta;
    EXPECT_GT(back, delta * (1.0 - 1.0 / 2048)) << delta;
  }
  // A power of two has mantissa 0: Delta = 1 at R_b = 8 is exponent 8.
  StepSize one;
  ASSERT_TRUE(step_for_value(1.0, 8, &one));
  EXPECT_EQ(one, (StepSize{8, 0}));
  // Exponents outside 0..31 cannot be signalled.
  StepSize bad;
  EXPECT_FALSE(step_for_value(std::ldexp(1.0, -30), 8, &bad));
  EXPECT_FALSE(step_for_value(512.0, 8, &bad));
  EXPECT_FALSE(step_for_value(0.0, 8, &bad));
}

TEST(StepSize, ExpoundedFollowsNorms) {
  // Delta_b = base / norm_b, each at its own R_b.
  const std::vector<double> norms = {4.0, 2.5, 2.5, 1.2, 1.9, 1.9, 1.0};
  std::vector<StepSize> steps;
  ASSERT_TRUE(expounded_step_sizes(8, norms, 1.0, &steps));
  ASSERT_EQ(steps.size(), norms.size());
  for (size_t i = 0; i < norms.size(); ++i) {
    const int rb = 8 + log2_subband_gain(subband_orientation(static_cast<int>(i)));
    EXPECT_NEAR(step_value(steps[i], rb), 1.0 / norms[i], 1.0 / norms[i] / 2048) << i;
  }
}

TEST(StepSize, DerivedFollowsLevels) {
  // E-5: epsilon_b = epsilon_0 - N_L + n_b, mu_b = mu_0; 3 levels.
  const auto steps = derived_step_sizes(StepSize{12, 100}, 3);
  ASSERT_EQ(steps.size(), 10u);
  const int expected[] = {12, 12, 12, 12, 11, 11, 11, 10, 10, 10};  // finer: larger steps
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(steps[i].exponent, expected[i]) << i;
    EXPECT_EQ(steps[i].mantissa, 100) << i;
    EXPECT_EQ(subband_level(i, 3), 3 - (i == 0 ? 0 : (i - 1) / 3)) << i;
  }
}

}  // namespace
}  // namespace mallat::quant
