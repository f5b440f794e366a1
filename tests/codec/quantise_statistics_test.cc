// A code-block quantised with its HT plane statistics in one pass
// (codec/stages/quantise_statistics.h) against the two passes it stands
// for: the plain quantiser's loops, then the plain statistics' pass over
// its indices. The same indices, clipped count, energy, statistics and
// packed form, to the bit, over blocks cut at every edge of the vector
// steps, all-zero blocks, clipped, infinite and NaN coefficients, the
// steps and bit-planes of several subbands and the deepest indices the one
// pass takes; in place and into another buffer, on each instruction set.
#include "codec/stages/quantise_statistics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "codec/encoder/packed_indices.h"

namespace mallat::codec {
namespace {

using entropy::HtPlaneStatistics;
using entropy::ht::CleanupIsa;

struct QuantisedShape {
  int64_t width, height;
  double step;
  int bitplanes, fraction_bits;
};

// What a block holds besides its Laplacian coefficients.
enum class Extra { kNone, kZeros, kOdd, kHuge };

// Coefficients of about `scale` steps (a Laplacian's spread); all zero
// (kZeros); with a few odd values (clipped, infinite, NaN, signed zeros,
// subnormals: kOdd); or with one in the first row 2^26 times the spread
// (kHuge), whose square makes the energy's double sum round each row's
// lanes after it, so that the order they are added in shows.
std::vector<float> shape_coefficients(const QuantisedShape& b, double scale, Extra extra, std::mt19937& rng) {
  std::vector<float> v(static_cast<size_t>(b.width * b.height));
  if (extra == Extra::kZeros) return v;
  std::exponential_distribution<double> size(1.0);
  for (float& c : v) c = static_cast<float>((rng() & 1 ? 1 : -1) * size(rng) * scale * b.step);
  if (extra == Extra::kOdd) {
    const float values[] = {
        -0.0f, INFINITY, -INFINITY, NAN, 1e-40f, -3e38f, static_cast<float>(std::ldexp(b.step, b.bitplanes))};
    for (const float x : values) v[rng() % v.size()] = x;
  }
  if (extra == Extra::kHuge)
    v[rng() % static_cast<size_t>(b.width)] = static_cast<float>(std::ldexp(scale * b.step, 26));
  return v;
}

void expect_one_pass_is_the_two_passes(const QuantisedShape& b, const std::vector<float>& c, CleanupIsa isa,
                                       bool in_place, const std::string& what) {
  const PlaneView<const float> in{c.data(), b.width, b.height, b.width};
  // The reference: the plain quantiser, then the plain statistics.
  std::vector<int32_t> plain(c.size());
  const PlaneView<int32_t> plain_view{plain.data(), b.width, b.height, b.width};
  const quant::QuantizationError plain_error =
      quant::quantize_dead_zone(in, b.step, b.bitplanes, plain_view, b.fraction_bits, quant::QuantizeLoops::kPlain);
  HtPlaneStatistics plain_statistics;
  entropy::gather_ht_plane_statistics_reference(plain_view, b.fraction_bits, plain_statistics);

  std::vector<float> copy = c;
  std::vector<int32_t> own(c.size(), 0x55555555);
  const PlaneView<int32_t> out =
      in_place ? PlaneView<int32_t>{reinterpret_cast<int32_t*>(copy.data()), b.width, b.height, b.width}
               : PlaneView<int32_t>{own.data(), b.width, b.height, b.width};
  quant::QuantizationError error;
  HtPlaneStatistics statistics;
  ASSERT_TRUE(quantise_with_ht_statistics({copy.data(), b.width, b.height, b.width}, b.step, b.bitplanes,
                                          b.fraction_bits, out, error, statistics, isa))
      << what;
  std::vector<int32_t> indices(c.size());
  for (int64_t y = 0; y < b.height; ++y)
    std::memcpy(indices.data() + y * b.width, out.row(y), static_cast<size_t>(b.width) * 4);
  ASSERT_EQ(indices, plain) << what;
  EXPECT_EQ(error.clipped, plain_error.clipped) << what;
  EXPECT_EQ(std::memcmp(&error.energy, &plain_error.energy, sizeof error.energy), 0) << what;
  EXPECT_EQ(std::memcmp(&statistics, &plain_statistics, sizeof statistics), 0) << what;
  // The kept form (kept_indices.h) packed from each.
  std::vector<uint8_t> packed(packed_indices_bound(b.width, b.height)), plain_packed(packed.size());
  const size_t bytes = pack_indices(out, b.fraction_bits, packed.data());
  const size_t plain_bytes = pack_indices_reference(plain_view, b.fraction_bits, plain_packed.data());
  ASSERT_EQ(bytes, plain_bytes) << what;
  EXPECT_EQ(std::memcmp(packed.data(), plain_packed.data(), bytes), 0) << what;
}

TEST(QuantiseStatistics, OnePassIsTheQuantiserThenTheStatistics) {
  std::mt19937 rng(41);
  std::vector<QuantisedShape> blocks;
  // Every width up to past two vector steps, odd and even heights.
  for (int64_t w = 1; w <= 40; ++w) blocks.push_back({w, 1 + w % 7, 0.37, 9, 2});
  // Code-block shapes of several subbands (15444-1 A.6.1), each with its
  // own step and Mb; cut at a subband's edge.
  for (const QuantisedShape& b : std::vector<QuantisedShape>{{64, 64, 0.0625, 10, 2},
                                                             {64, 64, 1.75, 8, 2},
                                                             {63, 17, 0.5, 11, 2},
                                                             {32, 128, 0.11, 12, 3},
                                                             {1024, 4, 2.0, 7, 0},
                                                             {4, 1024, 0.9, 9, 8},
                                                             {17, 33, 0.25, 12, 8},
                                                             {48, 5, 3.5, 6, 1}})
    blocks.push_back(b);
  // The deepest the one pass takes: Mb + F = 20.
  blocks.push_back({64, 64, 1.0 / 4096, 18, 2});
  blocks.push_back({31, 9, 1.0 / 65536, 12, 8});
  for (const QuantisedShape& b : blocks) {
    for (const double scale : {0.3, 3.0, 200.0}) {
      for (const Extra extra : {Extra::kNone, Extra::kZeros, Extra::kOdd, Extra::kHuge}) {
        const std::vector<float> c = shape_coefficients(b, scale * std::ldexp(1.0, b.bitplanes - 9), extra, rng);
        for (const CleanupIsa isa : {CleanupIsa::kAvx2, CleanupIsa::kAvx512}) {
          if (!entropy::ht::cleanup_isa_available(isa)) continue;
          for (const bool in_place : {true, false}) {
            const std::string what = std::to_string(b.width) + "x" + std::to_string(b.height) + " Mb " +
                                     std::to_string(b.bitplanes) + " F " + std::to_string(b.fraction_bits) + " scale " +
                                     std::to_string(scale) + " extra " + std::to_string(static_cast<int>(extra)) + " " +
                                     entropy::ht::cleanup_isa_name(isa) + (in_place ? " in place" : "");
            expect_one_pass_is_the_two_passes(b, c, isa, in_place, what);
          }
        }
      }
    }
  }
}

// Where the one pass does not apply it says so and writes nothing: the
// generic coder asked for, indices that may reach 2^20, more than a
// code-block.
TEST(QuantiseStatistics, DeclinesWhatItDoesNotTake) {
  std::vector<float> c(64 * 65, 1.0f);
  std::vector<int32_t> out(c.size(), 7);
  quant::QuantizationError error;
  HtPlaneStatistics statistics;
  const auto run = [&](int64_t w, int64_t h, int bitplanes, int fraction_bits, CleanupIsa isa) {
    return quantise_with_ht_statistics({c.data(), w, h, w}, 0.5, bitplanes, fraction_bits, {out.data(), w, h, w}, error,
                                       statistics, isa);
  };
  EXPECT_FALSE(run(64, 64, 10, 2, CleanupIsa::kGeneric));
  EXPECT_FALSE(run(64, 64, 19, 2, CleanupIsa::kBest));
  EXPECT_FALSE(run(64, 65, 10, 2, CleanupIsa::kBest));
  EXPECT_FALSE(run(2048, 2, 10, 2, CleanupIsa::kBest));
  for (const int32_t q : out) ASSERT_EQ(q, 7);
  if (entropy::ht::cleanup_isa_available(CleanupIsa::kAvx2)) {
    EXPECT_TRUE(run(64, 64, 18, 2, CleanupIsa::kBest));
  }
}

}  // namespace
}  // namespace mallat::codec
