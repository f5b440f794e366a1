// PCRD's search for a byte target (codec/encoder/prefix_search.h) against
// plain bisection over the same files: the same prefix wherever the
// overhead grows with the prefix, in far fewer sizings; a prefix that fits
// however the overhead behaves.
#include "codec/encoder/prefix_search.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace mallat::codec {
namespace {

// A file per prefix: body bytes that grow by the points' sizes, and an
// overhead of header bits that grows with them (`wobble` > 0 lets it shrink
// by up to that many bytes here and there).
struct Files {
  std::vector<double> body;
  std::vector<uint64_t> size;

  Files(size_t points, unsigned seed, double wobble) : body(points + 1), size(points + 1) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> bytes(0, 60), bits(0, 9);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    double over = 300;  // main header, tile-part header, empty packets
    for (size_t k = 0; k <= points; ++k) {
      if (k > 0) {
        body[k] = body[k - 1] + bytes(rng);
        over += bits(rng) / 8.0;
      }
      const double shrink = wobble > 0 && unit(rng) < 0.05 ? wobble * unit(rng) : 0.0;
      size[k] = static_cast<uint64_t>(body[k] + over - shrink);
    }
  }
};

size_t bisection(const Files& f, size_t lo, size_t hi, double target, int* sizings) {
  while (hi - lo > 1) {
    const size_t mid = lo + (hi - lo) / 2;
    ++*sizings;
    (static_cast<double>(f.size[mid]) <= target ? lo : hi) = mid;
  }
  return lo;
}

TEST(LongestFittingPrefix, IsBisectionsAnswerInFewerSizings) {
  int ours = 0, theirs = 0;
  for (unsigned seed = 1; seed <= 200; ++seed) {
    const size_t points = 1000 + seed * 211;
    const Files f(points, seed, 0.0);
    std::mt19937 rng(seed * 7);
    const size_t lo = seed % 3 == 0 ? points / 10 : 0;
    const double target = f.size[lo] + std::uniform_real_distribution<double>(0.0, 1.0)(rng) *
                                           static_cast<double>(f.size[points] - f.size[lo]);
    if (static_cast<double>(f.size[points]) <= target) continue;
    int sizings = 0;
    const size_t want = bisection(f, lo, points, target, &theirs);
    const Result<size_t> got = longest_fitting_prefix(
        lo, points, f.size[points], f.body, target, [&](size_t k) -> Result<uint64_t> { return f.size[k]; },
        &sizings);
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(*got, want) << "seed " << seed;
    ours += sizings;
  }
  // Bisection takes log2 of the points (10-16) each time.
  EXPECT_LT(ours * 2, theirs) << ours << " sizings against bisection's " << theirs;
}

TEST(LongestFittingPrefix, FitsWhereTheOverheadShrinks) {
  for (unsigned seed = 1; seed <= 100; ++seed) {
    const size_t points = 3000;
    const Files f(points, seed, 40.0);
    const double target = static_cast<double>(f.size[points / 2]) + 0.5;
    const Result<size_t> got = longest_fitting_prefix(
        0, points, f.size[points], f.body, target, [&](size_t k) -> Result<uint64_t> { return f.size[k]; });
    ASSERT_TRUE(got.ok());
    EXPECT_LE(static_cast<double>(f.size[*got]), target) << "seed " << seed;
    EXPECT_GE(*got, points / 2 - 50) << "seed " << seed;  // near the boundary, not the floor
  }
}

TEST(LongestFittingPrefix, NothingToSearchAndErrors) {
  const Files f(10, 3, 0.0);
  int sizings = 0;
  const auto size_of = [&](size_t k) -> Result<uint64_t> { return f.size[k]; };
  EXPECT_EQ(*longest_fitting_prefix(4, 5, f.size[5], f.body, 1e9, size_of, &sizings), 4u);
  EXPECT_EQ(sizings, 0);
  const auto failing = [](size_t) -> Result<uint64_t> { return internal_error("no Tier-2 today"); };
  const Result<size_t> failed = longest_fitting_prefix(0, 10, f.size[10], f.body, f.size[5], failing);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("no Tier-2"), std::string::npos);
}

}  // namespace
}  // namespace mallat::codec
