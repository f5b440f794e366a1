// The rule that lets rate control use blocks coded down to a pass limit
// (codec/encoder/pass_limits.h): wherever it says a cut block keeps its
// choice at a slope, the hull points of that slope or steeper are those of
// the whole coding, on random rate-distortion sequences cut anywhere (the
// passes past the exact ones given other lengths, as a terminated segment
// gives them); and the steepest point an allocation leaves out.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "codec/encoder/pass_limits.h"
#include "codec/encoder/rate_control.h"

namespace mallat::codec {
namespace {

// A hull's points of slope at least `slope`.
struct Points {
  std::vector<int> passes;
  std::vector<uint32_t> bytes;
  std::vector<double> gain;
  friend bool operator==(const Points&, const Points&) = default;
};
Points points_from(const CodeBlockHull& h, double slope) {
  Points p;
  for (size_t k = 0; k < h.passes.size() && h.slope[k] >= slope; ++k) {
    p.passes.push_back(h.passes[k]);
    p.bytes.push_back(h.bytes[k]);
    p.gain.push_back(h.gain[k]);
  }
  return p;
}

TEST(PassLimits, ABlockThatKeepsItsChoiceHasTheWholeCodingsPoints) {
  std::mt19937 rng(2026);
  size_t kept = 0, refused = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const int n = 2 + static_cast<int>(rng() % 60);
    std::vector<entropy::CodingPass> whole(static_cast<size_t>(n));
    double decrease = std::ldexp(1.0, 20) * (1 + rng() % 100);
    uint32_t length = 0;
    double total = 0;
    for (auto& pass : whole) {
      // Decreases fall about fourfold a plane, with noise; some passes
      // cost nothing or remove nothing.
      decrease *= 0.4 + 0.6 * (rng() % 1000) / 1000.0;
      pass.distortion_decrease = rng() % 17 == 0 ? 0.0 : decrease;
      length += rng() % 9 == 0 ? 0 : 1 + rng() % 400;
      pass.cumulative_length = length;
      total += pass.distortion_decrease;
    }
    const double weight = 0.25 + (rng() % 100) / 10.0;
    const int limit = 1 + static_cast<int>(rng() % static_cast<uint32_t>(n - 1));
    const int exact = std::max(0, limit - static_cast<int>(rng() % 3));
    // The cut block: exact passes as the whole coding's; the others'
    // lengths otherwise, never below the last exact one's nor falling.
    std::vector<entropy::CodingPass> cut(whole.begin(), whole.begin() + limit);
    uint32_t floor = exact > 0 ? cut[exact - 1].cumulative_length : 0;
    for (int i = exact; i < limit; ++i) {
      floor += rng() % 50;
      cut[static_cast<size_t>(i)].cumulative_length = floor;
    }
    const double bound = total * weight * (1 + (rng() % 3) * 0.01);
    const CodeBlockHull whole_hull = convex_hull(whole, weight);
    const CodeBlockHull cut_hull = convex_hull(cut, weight);
    for (int s = 0; s < 12; ++s) {
      const double slope = std::ldexp(1.0, static_cast<int>(rng() % 40) - 10) * weight;
      if (cut_keeps_choice(cut, exact, weight, bound, slope)) {
        ++kept;
        ASSERT_EQ(points_from(whole_hull, slope), points_from(cut_hull, slope))
            << "trial " << trial << ", slope " << slope << ", " << limit << " of " << n << " passes, " << exact
            << " exact";
      } else {
        ++refused;
      }
    }
  }
  // Both answers are common.
  EXPECT_GT(kept, 5000u);
  EXPECT_GT(refused, 5000u);
}

TEST(PassLimits, TheLastExactPassChosenIsRefused) {
  // Every pass worth its bytes at the slope: the choice is the last exact
  // pass, and a pass past it might be worth as much.
  std::vector<entropy::CodingPass> cut(4);
  for (int i = 0; i < 4; ++i) {
    cut[static_cast<size_t>(i)].distortion_decrease = 1000.0 / (i + 1);
    cut[static_cast<size_t>(i)].cumulative_length = static_cast<uint32_t>(10 * (i + 1));
  }
  EXPECT_FALSE(cut_keeps_choice(cut, 3, 1.0, 5000.0, 1.0));
  // At a slope the last passes are not worth, with little error left after
  // them, the choice holds.
  EXPECT_TRUE(cut_keeps_choice(cut, 3, 1.0, 1000.0 + 500.0 + 333.4, 40.0));
  // No pass exact: only sending nothing could be kept, and a pass might
  // beat it.
  EXPECT_FALSE(cut_keeps_choice(cut, 0, 1.0, 5000.0, 1.0));
}

TEST(PassLimits, SteepestLeftOutIsTheFirstHullPointNotTaken) {
  std::vector<entropy::CodingPass> a(3), b(2);
  a[0] = {10, false, 100.0};
  a[1] = {20, false, 50.0};
  a[2] = {30, true, 10.0};
  b[0] = {5, false, 80.0};
  b[1] = {9, true, 20.0};
  const std::vector<CodeBlockHull> hulls{convex_hull(a, 1.0), convex_hull(b, 1.0)};
  // Block a sends one pass (its next point: 50 / 10), b sends nothing (16).
  EXPECT_DOUBLE_EQ(steepest_left_out(hulls, std::vector<int>{1, 0}), 16.0);
  EXPECT_DOUBLE_EQ(steepest_left_out(hulls, std::vector<int>{1, 2}), 5.0);
  EXPECT_DOUBLE_EQ(steepest_left_out(hulls, std::vector<int>{3, 2}), 0.0);
}

}  // namespace
}  // namespace mallat::codec
