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

// A tile's span from its steps: their sum, and the Tier-1 kernel's place in
// it; the union of Tier-1's parts apart from the whole spans'.
TEST(BusyTime, SpansFromSteps) {
  const float steps[] = {2, 3, 5, 1};
  const DeviceSpan span = span_of_steps(100, steps, 4, 2);
  EXPECT_DOUBLE_EQ(span.start_ms, 100);
  EXPECT_DOUBLE_EQ(span.length_ms, 11);
  EXPECT_DOUBLE_EQ(span.tier1_from_ms, 5);
  EXPECT_DOUBLE_EQ(span.tier1_ms, 5);
  DeviceBusy busy;
  busy.add(span);
  busy.add(span_of_steps(104, steps, 4, 2));  // overlapping: Tier-1 at 109..114
  EXPECT_DOUBLE_EQ(busy.whole.total_ms(), 15);  // 100..115
  EXPECT_DOUBLE_EQ(busy.tier1.total_ms(), 9);   // 105..114
}

}  // namespace
}  // namespace mallat::codec
