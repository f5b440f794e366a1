#include "dwt/geometry.h"

#include <gtest/gtest.h>

#include <vector>

namespace mallat::dwt {
namespace {

TEST(DwtGeometry, DivisionByPowersOfTwo) {
  EXPECT_EQ(ceil_div_pow2(5, 1), 3);
  EXPECT_EQ(floor_div_pow2(5, 1), 2);
  EXPECT_EQ(ceil_div_pow2(-3, 1), -1);   // ceil(-1.5)
  EXPECT_EQ(floor_div_pow2(-3, 1), -2);  // floor(-1.5)
  EXPECT_EQ(ceil_div_pow2(-4, 2), -1);
  EXPECT_EQ(floor_div_pow2(-5, 2), -2);  // floor(-1.25)
  EXPECT_EQ(ceil_div_pow2(-5, 2), -1);
  EXPECT_EQ(ceil_div_pow2(8, 3), 1);
  EXPECT_EQ(ceil_div_pow2(9, 3), 2);
  EXPECT_EQ(ceil_div_pow2(0, 7), 0);
  EXPECT_EQ(ceil_div_pow2(1, 40), 1);
  EXPECT_EQ(floor_div_pow2(-1, 40), -1);
  EXPECT_EQ(floor_div_pow2(7, 0), 7);
  EXPECT_EQ(ceil_div_pow2(int64_t{1} << 40, 32), 256);
}

// Worked by hand from B-14 / B-15 for tcx0 = 3, tcx1 = 10 (samples 3..9).
TEST(DwtGeometry, HandWorkedB15) {
  const Rect tc{3, 5, 10, 12};
  // Level 1: low-pass columns are the even x in 3..9 (4, 6, 8): ceil(3/2) = 2
  // .. ceil(10/2) = 5; high-pass the odd ones (3, 5, 7, 9): ceil(2/2) = 1 ..
  // ceil(9/2) = 5. Rows 5..11: even 6, 8, 10 -> [3, 6); odd 5, 7, 9, 11 -> [2, 6).
  EXPECT_EQ(subband_rect(tc, 1, Band::kLL), (Rect{2, 3, 5, 6}));
  EXPECT_EQ(subband_rect(tc, 1, Band::kHL), (Rect{1, 3, 5, 6}));
  EXPECT_EQ(subband_rect(tc, 1, Band::kLH), (Rect{2, 2, 5, 6}));
  EXPECT_EQ(subband_rect(tc, 1, Band::kHH), (Rect{1, 2, 5, 6}));
  // Level 2 splits the level-1 LL columns 2, 3, 4: even 2, 4 -> ceil(3/4) = 1
  // .. ceil(10/4) = 3; odd 3 -> ceil(1/4) = 1 .. ceil(8/4) = 2.
  EXPECT_EQ(subband_rect(tc, 2, Band::kLL).x0, 1);
  EXPECT_EQ(subband_rect(tc, 2, Band::kLL).x1, 3);
  EXPECT_EQ(subband_rect(tc, 2, Band::kHL).x0, 1);
  EXPECT_EQ(subband_rect(tc, 2, Band::kHL).x1, 2);
  // B-14 with NL = 2.
  EXPECT_EQ(resolution_rect(tc, 2, 2), tc);
  EXPECT_EQ(resolution_rect(tc, 2, 1), (Rect{2, 3, 5, 6}));
  EXPECT_EQ(resolution_rect(tc, 2, 0), (Rect{1, 2, 3, 3}));
  // Packed: 3 low columns then 4 high ones; 3 low rows then 4 high ones.
  EXPECT_EQ(packed_subband_rect(tc, 2, 1, Band::kHL), (Rect{3, 0, 7, 3}));
  EXPECT_EQ(packed_subband_rect(tc, 2, 1, Band::kLH), (Rect{0, 3, 3, 7}));
  EXPECT_EQ(packed_subband_rect(tc, 2, 1, Band::kHH), (Rect{3, 3, 7, 7}));
  EXPECT_EQ(packed_subband_rect(tc, 2, 2, Band::kLL), (Rect{0, 0, 2, 1}));
  EXPECT_EQ(packed_subband_rect(tc, 2, 2, Band::kHL), (Rect{2, 0, 3, 1}));
  EXPECT_EQ(packed_subband_rect(tc, 2, 2, Band::kLH), (Rect{0, 1, 2, 3}));  // odd rows 3, 5
  EXPECT_EQ(packed_subband_rect(tc, 0, 0, Band::kLL), (Rect{0, 0, 7, 7}));
}

// The packed subbands of every level, plus the final LL, cover the plane
// exactly once, and each has the size B-15 gives its subband.
TEST(DwtGeometry, PackedSubbandsTileThePlane) {
  for (int64_t x0 : {0, 1, 2, 3, 5, 17}) {
    for (int64_t y0 : {0, 1, 4, 7}) {
      for (int64_t w : {1, 2, 3, 7, 16, 33}) {
        for (int64_t h : {1, 2, 5, 12}) {
          for (int levels = 0; levels <= 7; ++levels) {
            const Rect tc{x0, y0, x0 + w, y0 + h};
            std::vector<int> cover(static_cast<size_t>(w * h), 0);
            auto paint = [&](const Rect& r, const Rect& band) {
              EXPECT_EQ(r.width(), std::max<int64_t>(0, band.width()));
              EXPECT_EQ(r.height(), std::max<int64_t>(0, band.height()));
              for (int64_t y = r.y0; y < r.y1; ++y)
                for (int64_t x = r.x0; x < r.x1; ++x) {
                  ASSERT_TRUE(x >= 0 && x < w && y >= 0 && y < h);
                  ++cover[static_cast<size_t>(y * w + x)];
                }
            };
            for (int nb = 1; nb <= levels; ++nb) {
              for (Band b : {Band::kHL, Band::kLH, Band::kHH}) {
                paint(packed_subband_rect(tc, levels, nb, b), subband_rect(tc, nb, b));
              }
            }
            paint(packed_subband_rect(tc, levels, levels, Band::kLL), subband_rect(tc, levels, Band::kLL));
            for (int c : cover) ASSERT_EQ(c, 1) << x0 << "," << y0 << " " << w << "x" << h << " L" << levels;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace mallat::dwt
