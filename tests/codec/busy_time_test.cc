// BusyTime (codec/stages/busy_time.h) against the union counted sample by
// sample on a grid, for spans in every order, overlapping and apart.
#include "codec/stages/busy_time.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace mallat::codec {
namespace {

TEST(BusyTime, OverlapsCountOnce) {
  BusyTime busy;
  busy.add(10, 20);
  busy.add(15, 25);  // overlaps the first
  busy.add(30, 40);  // apart
  busy.add(25, 30);  // touches both: one span 10..40
  busy.add(5, 5);    // empty
  busy.add(50, 45);  // reversed
  EXPECT_DOUBLE_EQ(busy.total_ms(), 30);
  EXPECT_EQ(busy.spans(), 1u);
  busy.add(0, 100);  // covers it
  EXPECT_DOUBLE_EQ(busy.total_ms(), 100);
  EXPECT_EQ(busy.spans(), 1u);
}

TEST(BusyTime, EqualsTheUnionOnAGrid) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    constexpr int kGrid = 400;
    std::vector<bool> covered(kGrid, false);
    BusyTime busy;
    const int n = 1 + static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) {
      const int a = static_cast<int>(rng() % kGrid);
      const int b = std::min(kGrid, a + static_cast<int>(rng() % 30));
      for (int x = a; x < b; ++x) covered[x] = true;
      busy.add(a, b);
    }
    int expected = 0;
    for (bool c : covered) expected += c;
    ASSERT_DOUBLE_EQ(busy.total_ms(), expected) << "trial " << trial;
  }
}

// Past its bound, spans long ended are folded into the total, which stays
// the union's length.
TEST(BusyTime, FoldsOldSpansKeepingTheTotal) {
  BusyTime busy;
  double expected = 0;
  for (int i = 0; i < 5000; ++i) {
    const double start = i * 100.0;  // 100 ms apart, 40 ms long
    busy.add(start, start + 40);
    busy.add(start + 10, start + 30);  // inside: adds nothing
    expected += 40;
  }
  EXPECT_DOUBLE_EQ(busy.total_ms(), expected);
  EXPECT_LE(busy.spans(), 1025u);
}

}  // namespace
}  // namespace mallat::codec
