#include "quant/step_size.h"

#include <gtest/gtest.h>

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
