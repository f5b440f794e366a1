// The reference DWT against derivations that do not share its code: hand
// worked known answers, the closed form of the 5/3 lifting, and the Table
// F.4 analysis filters applied by convolution.
#include "dwt/reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "tests/dwt/dwt_test_support.h"

namespace mallat::dwt {
namespace {

using testing::PaddedPlane;

// Whole-sample symmetric reflection into [0, n), written as repeated
// reflection rather than F-4's modulo formula.
int64_t reflect(int64_t i, int64_t n) {
  while (i < 0 || i >= n) {
    if (i < 0) i = -i;
    if (i >= n) i = 2 * (n - 1) - i;
  }
  return i;
}

int64_t floor_half(int64_t a) { return a >= 0 ? a / 2 : -((-a + 1) / 2); }
int64_t floor_quarter(int64_t a) { return a >= 0 ? a / 4 : -((-a + 3) / 4); }

// Closed form of the 5/3 analysis (F.4.8.1) for samples x at coordinates
// i0.., computed sample by sample: d(i) = x(i) - floor((x(i-1) + x(i+1)) / 2)
// at odd i, s(i) = x(i) + floor((d(i-1) + d(i+1) + 2) / 4) at even i.
std::vector<int32_t> closed_form_53(const std::vector<int32_t>& x, int64_t i0) {
  const int64_t n = static_cast<int64_t>(x.size());
  if (n == 1) return {(i0 & 1) ? 2 * x[0] : x[0]};
  auto X = [&](int64_t i) -> int64_t { return x[static_cast<size_t>(reflect(i - i0, n))]; };
  auto D = [&](int64_t i) -> int64_t { return X(i) - floor_half(X(i - 1) + X(i + 1)); };
  auto S = [&](int64_t i) -> int64_t { return X(i) + floor_quarter(D(i - 1) + D(i + 1) + 2); };
  std::vector<int32_t> low, high;
  for (int64_t i = i0; i < i0 + n; ++i) {
    if (i % 2 == 0) low.push_back(static_cast<int32_t>(S(i)));
    else high.push_back(static_cast<int32_t>(D(i)));
  }
  low.insert(low.end(), high.begin(), high.end());
  return low;
}

// Table F.4 analysis filter taps (index 0, 1, 2, ...; symmetric).
constexpr double kLowTaps[] = {0.6029490182363579, 0.2668641184428723, -0.07822326652898785,
                               -0.01686411844287495, 0.02674875741080976};
constexpr double kHighTaps[] = {1.115087052456994, -0.5912717631142470, -0.05754352622849957,
                                0.09127176311424948};

std::vector<double> convolution_97(const std::vector<float>& x, int64_t i0) {
  const int64_t n = static_cast<int64_t>(x.size());
  auto X = [&](int64_t i) -> double { return x[static_cast<size_t>(reflect(i - i0, n))]; };
  std::vector<double> low, high;
  for (int64_t i = i0; i < i0 + n; ++i) {
    if (i % 2 == 0) {
      double acc = kLowTaps[0] * X(i);
      for (int k = 1; k <= 4; ++k) acc += kLowTaps[k] * (X(i - k) + X(i + k));
      low.push_back(acc);
    } else {
      double acc = kHighTaps[0] * X(i);
      for (int k = 1; k <= 3; ++k) acc += kHighTaps[k] * (X(i - k) + X(i + k));
      high.push_back(acc);
    }
  }
  low.insert(low.end(), high.begin(), high.end());
  return low;
}

TEST(DwtReference, PseIndex) {
  // F-4 on [2, 6): ... 4 3 | 2 3 4 5 | 4 3 2 3 ...
  EXPECT_EQ(reference::pse_index(0, 2, 6), 4);
  EXPECT_EQ(reference::pse_index(1, 2, 6), 3);
  EXPECT_EQ(reference::pse_index(6, 2, 6), 4);
  EXPECT_EQ(reference::pse_index(8, 2, 6), 2);
  EXPECT_EQ(reference::pse_index(9, 2, 6), 3);
  EXPECT_EQ(reference::pse_index(-1, 0, 2), 1);
  EXPECT_EQ(reference::pse_index(2, 0, 2), 0);
}

// 5/3 on x = 1 5 3 8 2 6 4 9 at i0 = 0 (x(8) mirrors to x(6) = 4, d(-1) to d(0)):
//   d0 = 5 - floor((1+3)/2) = 3      d1 = 8 - floor((3+2)/2) = 6
//   d2 = 6 - floor((2+4)/2) = 3      d3 = 9 - floor((4+4)/2) = 5
//   s0 = 1 + floor((3+3+2)/4) = 3    s1 = 3 + floor((3+6+2)/4) = 5
//   s2 = 2 + floor((6+3+2)/4) = 4    s3 = 4 + floor((3+5+2)/4) = 6
// And on x = 4 -3 7 0 -5 at i0 = 1 (odd first; x(0) = x(2) = -3, x(6) = x(4) = 0):
//   d(1) = 4 - floor(-6/2) = 7   d(3) = 7 - floor(-3/2) = 9   d(5) = -5 - 0 = -5
//   s(2) = -3 + floor(18/4) = 1  s(4) = 0 + floor(6/4) = 1
TEST(DwtReference, KnownAnswer53) {
  std::vector<int32_t> a{1, 5, 3, 8, 2, 6, 4, 9};
  reference::forward_53(a, 0);
  EXPECT_EQ(a, (std::vector<int32_t>{3, 5, 4, 6, 3, 6, 3, 5}));
  reference::inverse_53(a, 0);
  EXPECT_EQ(a, (std::vector<int32_t>{1, 5, 3, 8, 2, 6, 4, 9}));

  std::vector<int32_t> b{4, -3, 7, 0, -5};
  reference::forward_53(b, 1);
  EXPECT_EQ(b, (std::vector<int32_t>{1, 1, 7, 9, -5}));
  reference::inverse_53(b, 1);
  EXPECT_EQ(b, (std::vector<int32_t>{4, -3, 7, 0, -5}));
}

// F.4.7 / F.3.7: a single sample is copied at an even coordinate and doubled
// at an odd one (and halved back).
TEST(DwtReference, SingleSample) {
  std::vector<int32_t> a{-7};
  reference::forward_53(a, 4);
  EXPECT_EQ(a[0], -7);
  reference::forward_53(a, 3);
  EXPECT_EQ(a[0], -14);
  reference::inverse_53(a, 3);
  EXPECT_EQ(a[0], -7);
  std::vector<float> f{1.5f};
  reference::forward_97(f, 1);
  EXPECT_EQ(f[0], 3.0f);
  reference::inverse_97(f, 1);
  EXPECT_EQ(f[0], 1.5f);
  reference::forward_97(f, 2);
  EXPECT_EQ(f[0], 1.5f);
}

TEST(DwtReference, Lifting53MatchesClosedForm) {
  std::mt19937 rng(53);
  std::uniform_int_distribution<int32_t> dist(-1000, 1000);
  for (int64_t i0 = 0; i0 < 4; ++i0) {
    for (int n = 1; n <= 40; ++n) {
      std::vector<int32_t> x(static_cast<size_t>(n));
      for (auto& v : x) v = dist(rng);
      std::vector<int32_t> y = x;
      reference::forward_53(y, i0);
      ASSERT_EQ(y, closed_form_53(x, i0)) << "n=" << n << " i0=" << i0;
      reference::inverse_53(y, i0);
      ASSERT_EQ(y, x) << "n=" << n << " i0=" << i0;
    }
  }
}

TEST(DwtReference, Lifting97MatchesTableF4Filters) {
  std::mt19937 rng(97);
  std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
  for (int64_t i0 = 0; i0 < 4; ++i0) {
    for (int n = 2; n <= 40; ++n) {  // n = 1 is the special case above
      std::vector<float> x(static_cast<size_t>(n));
      for (auto& v : x) v = dist(rng);
      std::vector<float> y = x;
      reference::forward_97(y, i0);
      const std::vector<double> want = convolution_97(x, i0);
      for (int k = 0; k < n; ++k) {
        ASSERT_NEAR(y[k], want[k], 1e-6 * 100 * 4) << "n=" << n << " i0=" << i0 << " k=" << k;
      }
      reference::inverse_97(y, i0);
      for (int k = 0; k < n; ++k) ASSERT_NEAR(y[k], x[k], 1e-4) << "n=" << n << " i0=" << i0;
    }
  }
}

// A constant image: 5/3 leaves the constant in LL and zeros elsewhere, so the
// packed layout of geometry.h must agree with where the transform put things.
TEST(DwtReference, ConstantImageLandsInPackedLL) {
  for (int64_t x0 : {0, 1, 6}) {
    for (int64_t y0 : {0, 3}) {
      const int64_t w = 37, h = 22;
      PaddedPlane<int32_t> p(w, h);
      for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < w; ++x) p.at(x, y) = 9;
      ASSERT_TRUE(reference::transform(testing::job53(p.view(), Direction::kForward, 3, x0, y0)).ok());
      const Rect ll = packed_subband_rect(Rect{x0, y0, x0 + w, y0 + h}, 3, 3, Band::kLL);
      for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < w; ++x) {
          const bool in_ll = x < ll.x1 && y < ll.y1;
          ASSERT_EQ(p.at(x, y), in_ll ? 9 : 0) << x << "," << y;
        }
    }
  }
}

// Two levels of 2-D 5/3 built from the closed form: F.4.2 transforms the
// columns first, then the rows, and the next level takes the LL corner.
TEST(DwtReference, TwoDimensionalOrderAndLayout) {
  std::mt19937 rng(2);
  std::uniform_int_distribution<int32_t> dist(-500, 500);
  for (int64_t x0 : {0, 1}) {
    for (int64_t y0 : {0, 1, 2}) {
      const int64_t w = 11, h = 9;
      std::vector<std::vector<int32_t>> img(h, std::vector<int32_t>(w));
      for (auto& row : img)
        for (auto& v : row) v = dist(rng);
      PaddedPlane<int32_t> p(w, h);
      for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < w; ++x) p.at(x, y) = img[y][x];
      ASSERT_TRUE(reference::transform(testing::job53(p.view(), Direction::kForward, 2, x0, y0)).ok());

      int64_t rw = w, rh = h, u0 = x0, v0 = y0;
      for (int level = 1; level <= 2; ++level) {
        for (int64_t x = 0; x < rw; ++x) {
          std::vector<int32_t> col(rh);
          for (int64_t y = 0; y < rh; ++y) col[y] = img[y][x];
          col = closed_form_53(col, v0);
          for (int64_t y = 0; y < rh; ++y) img[y][x] = col[y];
        }
        for (int64_t y = 0; y < rh; ++y) {
          std::vector<int32_t> row(img[y].begin(), img[y].begin() + rw);
          row = closed_form_53(row, u0);
          std::copy(row.begin(), row.end(), img[y].begin());
        }
        // The next level: the low-pass samples, ceil(u / 2) on.
        rw = (u0 + rw + 1) / 2 - (u0 + 1) / 2;
        rh = (v0 + rh + 1) / 2 - (v0 + 1) / 2;
        u0 = (u0 + 1) / 2;
        v0 = (v0 + 1) / 2;
      }
      for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < w; ++x) ASSERT_EQ(p.at(x, y), img[y][x]) << x << "," << y;
    }
  }
}

}  // namespace
}  // namespace mallat::dwt
