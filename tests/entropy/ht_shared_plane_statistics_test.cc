// The shared HT plane statistics (entropy/ht/shared_plane_statistics.h),
// which the device's gather runs, against
// gather_ht_plane_statistics_reference: the same counts and energies to the
// bit for blocks of every size and edge, in rows wider than the block,
// with fraction bits 0..8 and magnitudes past the exact integer sums (2^20
// and more); and with the quads counted in the device's order (a thread
// block's threads striding over them), which the counts do not depend on.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "entropy/ht/compact_plane_statistics.h"
#include "entropy/ht/plane_estimate.h"
#include "entropy/ht/shared_plane_statistics.h"
#include "tests/entropy/laplacian_block.h"

namespace mallat::entropy {
namespace {

// A block of w x h inside rows of `stride` samples, the rest of each row
// filled with values that must not be read into the counts.
struct StridedBlock {
  std::vector<int32_t> rows;
  int64_t w = 0, h = 0, stride = 0;
  PlaneView<const int32_t> view() const { return {rows.data(), w, h, stride}; }
  HtBlockIndices indices() const {
    return {rows.data(), static_cast<uint32_t>(w), static_cast<uint32_t>(h), static_cast<uint64_t>(stride)};
  }
};

StridedBlock block_of(std::mt19937& rng, int t) {
  StridedBlock b;
  b.w = 1 + static_cast<int64_t>(rng() % 64);
  b.h = 1 + static_cast<int64_t>(rng() % 64);
  b.stride = b.w + static_cast<int64_t>(rng() % 5);
  // Scales up to 2^30: many blocks past 2^20.
  const double scale = std::ldexp(1.0, static_cast<int>(rng() % 31));
  const std::vector<int32_t> v = laplacian_block(scale, static_cast<unsigned>(t), static_cast<size_t>(b.w * b.h));
  b.rows.assign(static_cast<size_t>(b.stride * b.h), std::numeric_limits<int32_t>::max());
  for (int64_t y = 0; y < b.h; ++y)
    for (int64_t x = 0; x < b.w; ++x)
      b.rows[static_cast<size_t>(y * b.stride + x)] = v[static_cast<size_t>(y * b.w + x)];
  // Flat stretches (insignificant quads) and a deep sample in a shallow block.
  if (t % 3 == 0)
    for (int64_t x = 0; x < b.w; ++x) b.rows[static_cast<size_t>(x)] = 0;
  if (t % 7 == 0) b.rows[static_cast<size_t>((b.h - 1) * b.stride + b.w - 1)] = -(1 << 24) - 3;
  return b;
}

// The device's order: thread `k` of `threads` counts quads k, k + threads,
// ..., each into one shared tally.
bool counted_striding(const HtBlockIndices& b, int fraction_bits, int threads, HtPlaneCounts& counts,
                      double deep[kHtPlanes], HtPlaneStatistics& out) {
  ht_clear_counts(counts);
  HtPlainTally tally{counts};
  for (int k = threads - 1; k >= 0; --k)
    if (!ht_count_quads(b, fraction_bits, tally, static_cast<uint32_t>(k), static_cast<uint32_t>(threads)))
      return false;
  ht_finish_block(b, fraction_bits, counts, deep, out);
  return true;
}

TEST(HtSharedPlaneStatistics, TheReferencesStatisticsInAnyOrder) {
  std::mt19937 rng(11);
  int deep_blocks = 0;
  for (int t = 0; t < 400; ++t) {
    const StridedBlock b = block_of(rng, t);
    // Fraction bits 0..2 most often (the 9/7's at fine steps), up to 8.
    const int fraction_bits = t % 4 == 3 ? static_cast<int>(rng() % 9) : t % 3;
    const std::string what = std::to_string(b.w) + "x" + std::to_string(b.h) + " stride " +
                             std::to_string(b.stride) + " F " + std::to_string(fraction_bits) + " case " +
                             std::to_string(t);
    HtPlaneStatistics want;
    gather_ht_plane_statistics_reference(b.view(), fraction_bits, want);
    HtPlaneCounts counts;
    double deep[kHtPlanes];
    HtPlaneStatistics got;
    ASSERT_TRUE(ht_block_statistics(b.indices(), fraction_bits, counts, deep, got)) << what;
    ASSERT_EQ(std::memcmp(&got, &want, sizeof got), 0) << what;
    deep_blocks += !ht_energy_exact(counts);
    for (const int threads : {1, 32, 128}) {
      HtPlaneStatistics striding;
      ASSERT_TRUE(counted_striding(b.indices(), fraction_bits, threads, counts, deep, striding)) << what;
      ASSERT_EQ(std::memcmp(&striding, &want, sizeof striding), 0) << what << ", " << threads << " threads";
    }
  }
  // Both ways of summing the energies were taken.
  EXPECT_GT(deep_blocks, 50);
  EXPECT_LT(deep_blocks, 350);
}

// A deep block whose double sums round: the reference's order matters, and
// is kept.
TEST(HtSharedPlaneStatistics, RoundedSumsFollowTheReferencesOrder) {
  std::vector<int32_t> v(64 * 64);
  std::mt19937 rng(5);
  for (int32_t& x : v) x = static_cast<int32_t>((1u << 30) | (rng() & 0x3FFFFFFF)) * ((rng() & 1) ? 1 : -1);
  for (const int fraction_bits : {0, 1, 2}) {
    HtPlaneStatistics want, got;
    gather_ht_plane_statistics_reference({v.data(), 64, 64, 64}, fraction_bits, want);
    HtPlaneCounts counts;
    double deep[kHtPlanes];
    ASSERT_TRUE(ht_block_statistics({v.data(), 64, 64, 64}, fraction_bits, counts, deep, got));
    EXPECT_FALSE(ht_energy_exact(counts));
    EXPECT_EQ(std::memcmp(&got, &want, sizeof got), 0) << "F " << fraction_bits;
  }
}

// A magnitude of 2^31 at F = 0 has no bit length below kHtPlanes: refused,
// nothing written past the counts.
TEST(HtSharedPlaneStatistics, AMagnitudePastThePlanesIsRefused) {
  std::vector<int32_t> v(8 * 8, 3);
  v[9] = std::numeric_limits<int32_t>::min();
  HtPlaneCounts counts;
  double deep[kHtPlanes];
  HtPlaneStatistics out;
  EXPECT_FALSE(ht_block_statistics({v.data(), 8, 8, 8}, 0, counts, deep, out));
  EXPECT_TRUE(ht_block_statistics({v.data(), 8, 8, 8}, 1, counts, deep, out));
}

// The statistics cut at a tile's bit lengths (compact_plane_statistics.h),
// as the device writes them for the host: a block whose bit lengths lie
// below the cut expands to the full statistics to the bit; one with a bit
// length at or past it is caught (cuts).
TEST(HtSharedPlaneStatistics, CutStatisticsExpandToTheFullOnes) {
  std::mt19937 rng(23);
  int kept = 0, caught = 0;
  for (int t = 0; t < 300; ++t) {
    const StridedBlock b = block_of(rng, t);
    const int fraction_bits = t % 3;
    HtPlaneCounts counts;
    double deep[kHtPlanes];
    HtPlaneStatistics want;
    ASSERT_TRUE(ht_block_statistics(b.indices(), fraction_bits, counts, deep, want));
    int top = 0;
    for (int p = 0; p < kHtPlanes; ++p)
      if (want.quads[p] != 0) top = p;
    // Mb from the block's own top (the quantiser's bound) and one short of it.
    for (const int mb : {top, top + 3, top - 1}) {
      if (mb < 0) continue;
      const HtCompactLayout layout = HtCompactLayout::for_bitplanes(static_cast<uint32_t>(mb));
      ASSERT_EQ(layout.stride() % 8, 0u);
      if (mb < top) {
        EXPECT_TRUE(layout.cuts(counts)) << "case " << t;
        ++caught;
        continue;
      }
      ASSERT_FALSE(layout.cuts(counts)) << "case " << t;
      std::vector<unsigned char> stored(layout.stride() + 8, 0xA5);
      // At an 8-byte boundary, as the device's blocks are.
      unsigned char* at = stored.data() + (8 - reinterpret_cast<uintptr_t>(stored.data()) % 8) % 8;
      layout.store(counts, deep, fraction_bits, at);
      HtPlaneStatistics got;
      // Stale entries everywhere, which expand must clear.
      for (int q = 0; q < kHtPlanes; ++q) {
        got.quads[q] = 7;
        got.energy[q] = 1.5;
        for (int l = 0; l < kHtPlanes; ++l) got.samples[q][l] = 9;
      }
      layout.expand(at, got);
      ASSERT_EQ(std::memcmp(&got, &want, sizeof got), 0) << "case " << t << " Mb " << mb;
      ++kept;
    }
  }
  EXPECT_GT(kept, 300);
  EXPECT_GT(caught, 100);
  EXPECT_EQ(HtCompactLayout::for_bitplanes(40).planes, static_cast<uint32_t>(kHtPlanes));
}

}  // namespace
}  // namespace mallat::entropy
