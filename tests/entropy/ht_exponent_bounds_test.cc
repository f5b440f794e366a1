// Exponent bounds lowered at the coded plane (entropy/ht/exponent_bounds.h):
// which samples an HT block under a rate target codes one index lower, that
// the streams carry the lowered values, and that every pass's distortion
// decrease is the drop of the decoded values' error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <cstdint>
#include <string>
#include <vector>

#include "entropy/ht/code_block.h"
#include "entropy/ht/exponent_bounds.h"
#include "entropy/ht/passes.h"
#include "tests/entropy/ht_test_blocks.h"
#include "tests/entropy/laplacian_block.h"

namespace mallat::entropy {
namespace {

struct BoundsBlock {
  int w = 0, h = 0, mb = 0, fraction_bits = 0;
  std::vector<int32_t> v;
  PlaneView<const int32_t> view() const { return {v.data(), w, h, w}; }
};

// The block's samples decoded from the first `passes` passes of `coded`.
std::vector<int32_t> decode_passes(const BoundsBlock& b, const EncodedCodeBlock& coded, int passes,
                                   DecodedCodeBlockInfo* info_out = nullptr) {
  std::vector<int32_t> out(b.v.size(), 0);
  const std::vector<uint32_t> lengths = codeword_segment_lengths(coded, passes);
  CodeBlockToDecode in;
  in.data = std::span<const uint8_t>(coded.data.data(), coded.passes[passes - 1].cumulative_length);
  in.segment_lengths = lengths;
  in.num_passes = passes;
  in.zero_bitplanes = coded.zero_bitplanes;
  in.num_bitplanes = b.mb;
  in.style.ht = true;
  auto info = decode_ht_code_block(in, {out.data(), b.w, b.h, b.w});
  EXPECT_TRUE(info.ok());
  if (info_out && info.ok()) *info_out = *info;
  return out;
}

// Squared error of the decoded values against the finer ones, in index
// units: each non-zero sample at the middle of the interval it is known to
// (15444-1 E.1.1.2; after a SigProp pass the samples it made significant,
// of magnitude 2^lowest, to the lowest plane, the others one plane above).
double decoded_error(const BoundsBlock& b, const std::vector<int32_t>& decoded, const DecodedCodeBlockInfo& info) {
  double sum = 0;
  for (size_t i = 0; i < b.v.size(); ++i) {
    const double exact = std::ldexp(std::abs(static_cast<double>(b.v[i])), -b.fraction_bits);
    const double k = std::abs(static_cast<double>(decoded[i]));
    int plane = info.lowest_plane;
    if (info.ended_in_significance_pass && k >= std::ldexp(1.0, plane + 1)) ++plane;
    const double recon = k == 0 ? 0.0 : k + std::ldexp(1.0, plane - 1);
    sum += (exact - recon) * (exact - recon);
  }
  return sum;
}

Result<EncodedCodeBlock> encode(const BoundsBlock& b, int plane, bool refinement, bool distortions,
                                int lowering_share = -1) {
  HtEncodeSettings settings;
  settings.cleanup_plane = plane;
  settings.refinement = refinement;
  settings.distortions = distortions;
  settings.lowering_share = lowering_share;
  return encode_ht_code_block(b.view(), b.mb, b.fraction_bits, settings);
}

// One quad, two fraction bits, the cleanup at plane 1 (shift 3): mu = 3, 1,
// 1, 0. mu = 3 is exponent 3's first magnitude, one index lower the quad's
// bound is 2: 3 MagSgn bits and u_q's one saved for 2 f = 2 x 1/8 of a
// step^2, below 0.2 x 4.
BoundsBlock one_quad(int32_t first) {
  BoundsBlock b;
  b.w = 2;
  b.h = 2;
  b.mb = 4;
  b.fraction_bits = 2;
  b.v = {first, 11, -12, 0};  // (0, 0), (1, 0); (0, 1), (1, 1)
  return b;
}

TEST(HtExponentBounds, AQuadJustAboveAnExponentIsCodedOneIndexLower) {
  const BoundsBlock b = one_quad(3 * 8 + 1);
  const auto lowered = encode(b, 1, false, true);
  const auto plain = encode(b, 1, false, false);
  ASSERT_TRUE(lowered.ok() && plain.ok());
  // Decoded at their true weight: index 2 at plane 1, not 3.
  EXPECT_EQ(decode_passes(b, *lowered, 1)[0], 2 << 1);
  EXPECT_EQ(decode_passes(b, *plain, 1)[0], 3 << 1);
  // The other samples as they were.
  EXPECT_EQ(decode_passes(b, *lowered, 1)[1], 1 << 1);
  EXPECT_EQ(decode_passes(b, *lowered, 1)[2], -(1 << 1));
}

TEST(HtExponentBounds, ASampleFurtherAboveTheEdgeKeepsItsIndex) {
  // 2 f = 2 x 6/8 of a step^2 is more than the 0.2 x 4 the bits are worth.
  const BoundsBlock b = one_quad(3 * 8 + 6);
  const auto coded = encode(b, 1, false, true);
  ASSERT_TRUE(coded.ok());
  EXPECT_EQ(decode_passes(b, *coded, 1)[0], 3 << 1);
}

TEST(HtExponentBounds, NoLoweringWithoutFractionBitsOrDistortions) {
  // The reversible path's indices (no fraction bits): plane 0 stays lossless.
  BoundsBlock b = one_quad(3 * 8 + 1);
  b.fraction_bits = 0;
  b.mb = 6;
  const auto lossless = encode(b, 0, false, true);
  ASSERT_TRUE(lossless.ok());
  EXPECT_EQ(decode_passes(b, *lossless, 1), b.v);
  const auto at_plane = encode(b, 3, false, true);
  ASSERT_TRUE(at_plane.ok());
  EXPECT_EQ(decode_passes(b, *at_plane, 1)[0], 3 << 3);
}

// kappa_q from the row above: a quad of two significant samples below one
// whose bottom sample has exponent 5 has kappa 4, so its exponent 3 is no
// bound to lower; with nothing above, kappa is 1 and it is lowered.
TEST(HtExponentBounds, ABoundAtKappaIsNotLowered) {
  BoundsBlock b;
  b.w = 2;
  b.h = 4;
  b.mb = 6;
  b.fraction_bits = 2;
  // Rows 0-1: mu = 10 (exponent 5, not its first magnitude) at (0, 1).
  // Rows 2-3: mu = 3 just above its edge at (0, 2), mu = 1 at (1, 3).
  b.v = {0, 0, 10 * 8 + 4, 0, 3 * 8 + 1, 0, 0, 8 + 2};
  const auto coded = encode(b, 1, false, true);
  ASSERT_TRUE(coded.ok());
  const std::vector<int32_t> decoded = decode_passes(b, *coded, 1);
  EXPECT_EQ(decoded[2], 10 << 1);
  EXPECT_EQ(decoded[4], 3 << 1);
  b.v[2] = 0;
  const auto alone = encode(b, 1, false, true);
  ASSERT_TRUE(alone.ok());
  EXPECT_EQ(decode_passes(b, *alone, 1)[4], 2 << 1);
}

// Laplacian blocks with two fraction bits (the rate control's kept
// indices), the cleanup alone and with SigProp and MagRef, at the default
// share and at the every-plane mode's second: some samples are lowered, and
// each pass's decrease is what the decoded values say. A larger share
// lowers more: fewer cleanup bytes, smaller decreases.
TEST(HtExponentBounds, DecreasesAreTheDecodedValuesDrops) {
  int lowered_blocks = 0, lowered_more = 0;
  uint64_t cleanup_bytes = 0, plain_bytes = 0, more_bytes = 0;
  for (int i = 0; i < 24; ++i) {
    BoundsBlock b;
    b.w = 64;
    b.h = 64;
    b.mb = 14;
    b.fraction_bits = 2;
    b.v = laplacian_block(4.0 + 6.0 * i, static_cast<unsigned>(100 + i));
    for (int p = 1; p < 5; ++p) {
      for (const bool refinement : {false, true}) {
        SCOPED_TRACE("block " + std::to_string(i) + " p=" + std::to_string(p) + (refinement ? " refined" : ""));
        const auto plain = encode(b, p, refinement, false);
        const auto by_default = encode(b, p, refinement, true);
        const auto more = encode(b, p, refinement, true, ht::default_lowering_share(refinement) + 1);
        ASSERT_TRUE(by_default.ok() && plain.ok() && more.ok());
        if (by_default->num_passes == 0) continue;
        for (const EncodedCodeBlock* coded : {&*by_default, &*more}) {
          DecodedCodeBlockInfo info;
          const std::vector<int32_t> after_cleanup = decode_passes(b, *coded, 1, &info);
          const double before = decoded_error(b, std::vector<int32_t>(b.v.size(), 0), info);
          const double cleanup_error = decoded_error(b, after_cleanup, info);
          const double scale = 1e-9 * (1 + before);
          EXPECT_NEAR(coded->passes[0].distortion_decrease, before - cleanup_error, scale);
          if (!refinement) continue;
          const double sigprop_error = decoded_error(b, decode_passes(b, *coded, 2, &info), info);
          const double magref_error = decoded_error(b, decode_passes(b, *coded, 3, &info), info);
          EXPECT_NEAR(coded->passes[1].distortion_decrease, cleanup_error - sigprop_error, scale);
          EXPECT_NEAR(coded->passes[2].distortion_decrease, sigprop_error - magref_error, scale);
        }
        if (decode_passes(b, *by_default, 1) != decode_passes(b, *plain, 1)) ++lowered_blocks;
        cleanup_bytes += by_default->passes[0].cumulative_length;
        plain_bytes += plain->passes[0].cumulative_length;
        more_bytes += more->passes[0].cumulative_length;
        if (more->passes[0].distortion_decrease < by_default->passes[0].distortion_decrease) ++lowered_more;
      }
    }
  }
  EXPECT_GT(lowered_blocks, 50);
  EXPECT_GT(lowered_more, 50);
  // Lowering spends error to save bytes.
  EXPECT_LT(cleanup_bytes, plain_bytes);
  EXPECT_LT(more_bytes, cleanup_bytes);
}

// The CPU's one pass (lower_exponent_bounds_cpu: the quads tested in
// vector lanes as the values are written), every instruction set's build,
// against the plain rule's mask applied: the same values and the same
// sums, to the bit, over every shape class, odd widths and heights, shifts
// up to the magnitudes' top (beyond 20 the plain rule itself), with and
// without refinement; and over Laplacian blocks, where many quads are
// lowered, at the default shares and at others a caller may give.
TEST(HtExponentBounds, TheCpuChoiceIsThePlainOne) {
  const auto expect_same = [](PlaneView<const int32_t> v, int shift, bool refinement, int share,
                              const std::string& what) {
    ht::LoweredSamples plain;
    const ht::LoweringEffect a = ht::lower_exponent_bounds(v, shift, refinement, share, plain);
    const size_t n = static_cast<size_t>(v.width * v.height);
    std::vector<int32_t> expected(n);
    ht::apply_lowering(v, shift, plain, expected.data());
    for (const ht::CleanupIsa isa : {ht::CleanupIsa::kGeneric, ht::CleanupIsa::kAvx2, ht::CleanupIsa::kAvx512}) {
      if (!ht::cleanup_isa_available(isa)) continue;
      const std::string where = what + " " + ht::cleanup_isa_name(isa);
      // Filled with a value no block holds, so that a sample left unwritten shows.
      std::vector<int32_t> coded(n, INT32_MIN);
      const ht::LoweringEffect b = ht::lower_exponent_bounds_cpu(v, shift, refinement, share, coded.data(), isa);
      EXPECT_EQ(a.any, b.any) << where;
      EXPECT_EQ(a.cleanup, b.cleanup) << where;
      EXPECT_EQ(a.magref, b.magref) << where;
      if (a.any) {
        ASSERT_EQ(expected, coded) << where;
      }
      // The block as a window of a wider plane (rows apart by more than
      // its width), the padding of values that would lower.
      const int64_t stride = v.width + 3;
      std::vector<int32_t> wide(static_cast<size_t>(stride * v.height),
                               static_cast<int32_t>(std::min<int64_t>((int64_t{3} << shift) + 1, INT32_MAX)));
      for (int64_t y = 0; y < v.height; ++y) std::copy(v.row(y), v.row(y) + v.width, wide.data() + y * stride);
      std::fill(coded.begin(), coded.end(), INT32_MIN);
      const ht::LoweringEffect c =
          ht::lower_exponent_bounds_cpu({wide.data(), v.width, v.height, stride}, shift, refinement, share,
                                        coded.data(), isa);
      EXPECT_EQ(a.cleanup, c.cleanup) << where << " in a wider plane";
      if (a.any) {
        ASSERT_EQ(expected, coded) << where << " in a wider plane";
      }
    }
  };
  std::mt19937 rng(41);
  for (int i = 0; i < 300; ++i) {
    const ht_test::Block b = ht_test::random_block(rng, 4);
    if (b.mb + b.fraction_bits < 2) continue;
    for (int shift = 1; shift < b.mb + b.fraction_bits; shift += 1 + i % 3) {
      for (const bool refinement : {false, true}) {
        if (refinement && shift < 2) continue;
        expect_same(b.view(), shift, refinement, ht::default_lowering_share(refinement),
                    b.describe() + " shift " + std::to_string(shift) + (refinement ? " refined" : ""));
      }
    }
  }
  for (int i = 0; i < 16; ++i) {
    const std::vector<int32_t> v = laplacian_block(4.0 + 9.0 * i, static_cast<unsigned>(300 + i));
    for (int shift = 2; shift < 8; ++shift) {
      for (const int share : {0, 1, 2, 3, 7}) {
        expect_same({v.data(), 64, 64, 64}, shift, i % 2 == 0, share,
                    "laplacian " + std::to_string(i) + " share " + std::to_string(share));
      }
    }
  }
}

}  // namespace
}  // namespace mallat::entropy
