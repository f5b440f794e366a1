// The HT plane estimates (entropy/ht/plane_estimate.h) against the HT block
// coder itself: the counts add up to the block, the top plane is the
// largest magnitude's, and at every plane the estimated decrease is near
// the cleanup's measured one and the estimated bytes near its segment's.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "entropy/ht/code_block.h"
#include "entropy/ht/plane_estimate.h"
#include "tests/entropy/laplacian_block.h"

namespace mallat::entropy {
namespace {

TEST(HtPlaneEstimate, CountsCoverTheBlock) {
  const std::vector<int32_t> v = laplacian_block(20.0, 7);
  HtPlaneStatistics s;
  gather_ht_plane_statistics({v.data(), 64, 64, 64}, 0, s);
  uint64_t quads = 0, significant = 0, largest = 0, nonzero = 0;
  for (int b = 0; b < kHtPlanes; ++b) {
    quads += s.quads[b];
    for (int l = 0; l < kHtPlanes; ++l) significant += s.samples[b][l];
  }
  for (int32_t x : v) {
    largest = std::max<uint64_t>(largest, static_cast<uint64_t>(std::abs(x)));
    nonzero += x != 0;
  }
  EXPECT_EQ(quads, 32u * 32u);
  EXPECT_EQ(significant, nonzero);
  EXPECT_EQ(estimate_ht_planes(s, 0).planes, std::bit_width(largest));
}

TEST(HtPlaneEstimate, AnEmptyBlockHasNoPlanes) {
  const std::vector<int32_t> v(16 * 8, 0);
  HtPlaneStatistics s;
  gather_ht_plane_statistics({v.data(), 16, 8, 16}, 2, s);
  const HtPlaneEstimate e = estimate_ht_planes(s, 2);
  EXPECT_EQ(e.planes, 0);
  EXPECT_EQ(e.energy, 0.0);
}

// The fast pass against the plain one: the same counts and energies to the
// bit, for blocks of every size (quads and 16-column steps cut at the
// edges), fraction and magnitude, those past the exact integer sums (and
// INT32_MIN's magnitude) included.
TEST(HtPlaneEstimate, TheFastPassGathersTheReferencesStatistics) {
  std::mt19937 rng(3);
  for (int t = 0; t < 300; ++t) {
    const int64_t w = 1 + static_cast<int64_t>(rng() % 64), h = 1 + static_cast<int64_t>(rng() % 64);
    const int fraction_bits = static_cast<int>(rng() % 9);
    const double scale = std::ldexp(1.0, static_cast<int>(rng() % 26));
    std::vector<int32_t> v = laplacian_block(scale, static_cast<unsigned>(t), static_cast<size_t>(w * h));
    if (t % 17 == 0) v[rng() % v.size()] = std::numeric_limits<int32_t>::min();
    // Flat stretches: whole steps of insignificant quads.
    if (t % 3 == 0)
      for (size_t i = 0; i < v.size() / 2; ++i) v[i] = 0;
    HtPlaneStatistics plain;
    gather_ht_plane_statistics_reference({v.data(), w, h, w}, fraction_bits, plain);
    uint32_t largest = 0;
    for (const int32_t q : v) largest |= q < 0 ? 0u - static_cast<uint32_t>(q) : static_cast<uint32_t>(q);
    // Each instruction set this CPU has.
    for (const ht::CleanupIsa isa : {ht::CleanupIsa::kAvx2, ht::CleanupIsa::kAvx512}) {
      if (!ht::cleanup_isa_available(isa)) continue;
      const std::string what = std::to_string(w) + "x" + std::to_string(h) + " F " + std::to_string(fraction_bits) +
                               " case " + std::to_string(t) + " " + ht::cleanup_isa_name(isa);
      HtPlaneStatistics fast;
      gather_ht_plane_statistics({v.data(), w, h, w}, fraction_bits, fast, 32, isa);
      ASSERT_EQ(std::memcmp(&fast, &plain, sizeof fast), 0) << what;
      // With the block's bound given, as a quantiser knows it.
      HtPlaneStatistics bounded;
      gather_ht_plane_statistics({v.data(), w, h, w}, fraction_bits, bounded, std::bit_width(largest), isa);
      ASSERT_EQ(std::memcmp(&bounded, &plain, sizeof fast), 0) << what;
    }
  }
}

// The estimate against its reference, bit for bit, over blocks of every
// size, fraction and magnitude (those past the exact sums included).
TEST(HtPlaneEstimate, TheEstimateIsTheReferences) {
  std::mt19937 rng(5);
  for (int t = 0; t < 300; ++t) {
    const int64_t w = 1 + static_cast<int64_t>(rng() % 64), h = 1 + static_cast<int64_t>(rng() % 64);
    const int fraction_bits = static_cast<int>(rng() % 9);
    // Up to 2^30: past the exact sums too (the reference's double energies).
    const double scale = std::ldexp(1.0, static_cast<int>(rng() % 31));
    const std::vector<int32_t> v = laplacian_block(scale, static_cast<unsigned>(t), static_cast<size_t>(w * h));
    HtPlaneStatistics s;
    gather_ht_plane_statistics({v.data(), w, h, w}, fraction_bits, s);
    const HtPlaneEstimate e = estimate_ht_planes(s, fraction_bits);
    const HtPlaneEstimate plain = estimate_ht_planes_reference(s, fraction_bits);
    const std::string what = std::to_string(w) + "x" + std::to_string(h) + " F " + std::to_string(fraction_bits) +
                             " case " + std::to_string(t);
    ASSERT_EQ(e.planes, plain.planes) << what;
    ASSERT_EQ(e.energy, plain.energy) << what;
    ASSERT_EQ(std::memcmp(e.bytes, plain.bytes, sizeof e.bytes), 0) << what;
    ASSERT_EQ(std::memcmp(e.error_left, plain.error_left, sizeof e.error_left), 0) << what;
  }
}

// Laplacian blocks with F fraction bits below their indices, every plane.
TEST(HtPlaneEstimate, NearTheCoderAtEveryPlane) {
  for (double scale : {2.0, 8.0, 40.0, 300.0}) {
    for (int fraction_bits : {0, 3}) {
      std::vector<int32_t> v = laplacian_block(scale * (1 << fraction_bits), 11);
      HtPlaneStatistics s;
      gather_ht_plane_statistics({v.data(), 64, 64, 64}, fraction_bits, s);
      const HtPlaneEstimate e = estimate_ht_planes(s, fraction_bits);
      const int mb = e.planes;
      for (int p = 0; p < mb; ++p) {
        HtEncodeSettings settings;
        settings.cleanup_plane = p;
        const Result<EncodedCodeBlock> coded = encode_ht_code_block({v.data(), 64, 64, 64}, mb, fraction_bits, settings);
        ASSERT_TRUE(coded.ok());
        const std::string what = "scale " + std::to_string(scale) + " F " + std::to_string(fraction_bits) + " p " +
                                 std::to_string(p);
        const double bytes = coded->passes[0].cumulative_length;
        const double decrease = coded->passes[0].distortion_decrease;
        // A uniform error within each interval: within a few per cent of
        // all the energy.
        EXPECT_NEAR(e.decrease(p), decrease, 0.03 * e.energy) << what;
        // The model's bytes: within a third of the segment's, or 24 bytes.
        EXPECT_NEAR(e.bytes[p], bytes, std::max(24.0, bytes / 3)) << what;
      }
    }
  }
}

}  // namespace
}  // namespace mallat::entropy
