#include "codec/stages/component_transform.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <utility>
#include <random>
#include <vector>

namespace mallat::codec {
namespace {

TEST(ComponentTransform, RctKnownValues) {
  // Worked by hand from G.2: R=10, G=20, B=40 -> Y = floor(90/4) = 22,
  // Cb = 40 - 20 = 20, Cr = 10 - 20 = -10. Negative sums floor downwards:
  // R=-3, G=0, B=0 -> Y = floor(-3/4) = -1.
  std::vector<int32_t> r{10, -3}, g{20, 0}, b{40, 0};
  rct_forward(r, g, b);
  EXPECT_EQ(r[0], 22);
  EXPECT_EQ(g[0], 20);
  EXPECT_EQ(b[0], -10);
  EXPECT_EQ(r[1], -1);
}

TEST(ComponentTransform, RctIsExactlyReversible) {
  std::mt19937 rng(7);
  for (int bits : {1, 8, 12, 16}) {
    std::uniform_int_distribution<int32_t> d(-(1 << (bits - 1)), (1 << (bits - 1)) - 1);
    std::vector<int32_t> r(1000), g(1000), b(1000);
    for (int i = 0; i < 1000; ++i) r[i] = d(rng), g[i] = d(rng), b[i] = d(rng);
    auto r0 = r, g0 = g, b0 = b;
    rct_forward(r, g, b);
    rct_inverse(r, g, b);
    EXPECT_EQ(r, r0);
    EXPECT_EQ(g, g0);
    EXPECT_EQ(b, b0);
  }
}

TEST(ComponentTransform, IctRoundTripAndGrey) {
  // Grey (R = G = B) has no chrominance; the inverse recovers RGB closely.
  std::vector<float> r{100, -50, 12.5f}, g{100, 20, -7}, b{100, 90, 3};
  auto r0 = r, g0 = g, b0 = b;
  ict_forward(r, g, b);
  EXPECT_NEAR(r[0], 100, 1e-3);
  EXPECT_NEAR(g[0], 0, 1e-3);
  EXPECT_NEAR(b[0], 0, 1e-3);
  ict_inverse(r, g, b);
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(r[i], r0[i], 0.01);
    EXPECT_NEAR(g[i], g0[i], 0.01);
    EXPECT_NEAR(b[i], b0[i], 0.01);
  }
}

TEST(ComponentTransform, DcShiftAndClamp) {
  std::vector<int32_t> s{0, 255, 128};
  dc_level_shift_forward(s, 8, false);
  EXPECT_EQ(s, (std::vector<int32_t>{-128, 127, 0}));
  dc_level_shift_inverse(s, 8, false);
  EXPECT_EQ(s, (std::vector<int32_t>{0, 255, 128}));
  std::vector<int32_t> signed_s{-5, 5};
  dc_level_shift_forward(signed_s, 8, true);
  EXPECT_EQ(signed_s, (std::vector<int32_t>{-5, 5}));
  std::vector<int32_t> c{-9, 300, 4};
  clamp_to_precision(c, 8, false);
  EXPECT_EQ(c, (std::vector<int32_t>{0, 255, 4}));
  std::vector<int32_t> cs{-900, 900};
  clamp_to_precision(cs, 10, true);
  EXPECT_EQ(cs, (std::vector<int32_t>{-512, 511}));
}

// The one-pass shift and colour transform against its plain form: the DC
// shift (dc_level_shift_forward), then rct_forward / ict_forward in place.
TEST(ComponentTransform, ShiftedTransformsEqualShiftThenTransform) {
  std::mt19937 rng(11);
  for (const auto& [precision, is_signed] : {std::pair{8, false}, std::pair{12, false}, std::pair{16, true}}) {
    std::uniform_int_distribution<int32_t> d(is_signed ? -(1 << (precision - 1)) : 0,
                                             is_signed ? (1 << (precision - 1)) - 1 : (1 << precision) - 1);
    const size_t n = 1003;  // not a whole number of vector lanes
    std::vector<int32_t> in[3];
    for (auto& c : in) {
      c.resize(n);
      for (int32_t& v : c) v = d(rng);
    }
    const int32_t shift[3] = {is_signed ? 0 : 1 << (precision - 1), is_signed ? 0 : 1 << (precision - 1),
                              is_signed ? 0 : 1 << (precision - 1)};
    std::vector<int32_t> want[3] = {in[0], in[1], in[2]};
    std::vector<float> want_f[3];
    for (int c = 0; c < 3; ++c) {
      dc_level_shift_forward(want[c], precision, is_signed);
      for (int32_t v : want[c]) want_f[c].push_back(static_cast<float>(v));
    }
    rct_forward(want[0], want[1], want[2]);
    ict_forward(want_f[0], want_f[1], want_f[2]);
    std::vector<int32_t> got[3] = {std::vector<int32_t>(n), std::vector<int32_t>(n), std::vector<int32_t>(n)};
    shifted_rct_forward(in[0], in[1], in[2], shift, got[0].data(), got[1].data(), got[2].data());
    std::vector<float> got_f[3] = {std::vector<float>(n), std::vector<float>(n), std::vector<float>(n)};
    shifted_ict_forward(in[0], in[1], in[2], shift, got_f[0].data(), got_f[1].data(), got_f[2].data());
    for (int c = 0; c < 3; ++c) {
      EXPECT_EQ(got[c], want[c]) << "RCT component " << c << ", " << precision << " bits";
      // Bit for bit: the same floats, not merely close ones.
      EXPECT_EQ(0, std::memcmp(got_f[c].data(), want_f[c].data(), n * sizeof(float)))
          << "ICT component " << c << ", " << precision << " bits";
    }
  }
}

}  // namespace
}  // namespace mallat::codec
