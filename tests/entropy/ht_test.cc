// The HT block coder (entropy/ht/code_block.h): round trips over random
// blocks of every shape class, Mb up to 31, cleanup planes with and without
// refinement, checked against a plain model of what each pass makes known
// (written here from the pass rules, sample by sample); the SigProp-only
// cut; distortion decreases against the decoded values; the VLC tables'
// coverage.
#include "entropy/ht/code_block.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "entropy/ht/vlc_tables.h"
#include "tests/entropy/ht_test_blocks.h"

namespace mallat::entropy {
namespace {

using ht_test::Block;
using ht_test::random_block;

// What a decoder knows after the cleanup at plane p and `refinement`
// passes (0, 1 SigProp, 2 SigProp and MagRef) at p - 1: the plain model.
std::vector<int32_t> expected(const Block& b, int p, int refinement, bool vertical_causal) {
  const int64_t w = b.w, h = b.h;
  std::vector<uint32_t> mag(b.v.size()), known(b.v.size(), 0);
  std::vector<uint8_t> sig(b.v.size(), 0), cleanup(b.v.size(), 0);
  for (size_t i = 0; i < b.v.size(); ++i) {
    const int64_t v = b.v[i];
    mag[i] = static_cast<uint32_t>((v < 0 ? -v : v) >> b.fraction_bits);
    if (mag[i] >> p) {
      sig[i] = cleanup[i] = 1;
      known[i] = mag[i] >> p << p;
    }
  }
  if (refinement >= 1) {
    const uint32_t bit = 1u << (p - 1);
    for (int64_t y0 = 0; y0 < h; y0 += 4) {
      for (int64_t x = 0; x < w; ++x) {
        for (int64_t y = y0; y < std::min(y0 + 4, h); ++y) {
          const size_t i = static_cast<size_t>(y * w + x);
          if (sig[i]) continue;
          bool neighbour = false;
          for (int64_t dy = -1; dy <= 1; ++dy) {
            for (int64_t dx = -1; dx <= 1; ++dx) {
              const int64_t xx = x + dx, yy = y + dy;
              if (xx < 0 || yy < 0 || xx >= w || yy >= h || (dx == 0 && dy == 0)) continue;
              if (vertical_causal && yy >= y0 + 4) continue;
              neighbour |= sig[static_cast<size_t>(yy * w + xx)] != 0;
            }
          }
          if (neighbour && (mag[i] & bit)) {
            sig[i] = 1;
            known[i] = bit;
          }
        }
      }
    }
    if (refinement >= 2) {
      for (size_t i = 0; i < mag.size(); ++i) {
        if (cleanup[i]) known[i] |= mag[i] & bit;
      }
    }
  }
  std::vector<int32_t> out(b.v.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = b.v[i] < 0 ? -static_cast<int32_t>(known[i]) : static_cast<int32_t>(known[i]);
  return out;
}

std::vector<int32_t> decode(const Block& b, const EncodedCodeBlock& coded, int passes, bool vertical_causal,
                            DecodedCodeBlockInfo* info_out = nullptr) {
  std::vector<int32_t> out(b.v.size(), 12345);
  const std::vector<uint32_t> lengths = codeword_segment_lengths(coded, passes);
  CodeBlockToDecode in;
  in.data = std::span<const uint8_t>(coded.data.data(), passes > 0 ? coded.passes[passes - 1].cumulative_length : 0);
  in.segment_lengths = lengths;
  in.num_passes = passes;
  in.zero_bitplanes = coded.zero_bitplanes;
  in.num_bitplanes = b.mb;
  in.style.ht = true;
  in.style.vertical_causal = vertical_causal;
  auto info = decode_ht_code_block(in, {out.data(), b.w, b.h, b.w});
  EXPECT_TRUE(info.ok()) << info.status().message();
  if (info_out && info.ok()) *info_out = *info;
  return out;
}

TEST(HtCodeBlock, CleanupAtPlaneZeroIsLossless) {
  std::mt19937 rng(1);
  for (int i = 0; i < 300; ++i) {
    const Block b = random_block(rng, 0);
    SCOPED_TRACE(b.describe());
    auto coded = encode_ht_code_block(b.view(), b.mb, 0);
    ASSERT_TRUE(coded.ok()) << coded.status().message();
    if (coded->num_passes == 0) {
      for (int32_t v : b.v) ASSERT_EQ(v, 0);
      continue;
    }
    ASSERT_EQ(coded->num_passes, 1);
    EXPECT_EQ(coded->zero_bitplanes, b.mb - 1);
    EXPECT_NE(coded->data.back(), 0xFF);
    ASSERT_EQ(decode(b, *coded, 1, false), b.v);
  }
}

TEST(HtCodeBlock, EveryPlaneWithAndWithoutRefinementMatchesThePlainModel) {
  std::mt19937 rng(2);
  for (int i = 0; i < 400; ++i) {
    const Block b = random_block(rng, static_cast<int>(rng() % 4));
    if (b.mb == 0) continue;
    const int p = static_cast<int>(rng() % static_cast<unsigned>(b.mb));
    const bool refine = p > 0 && rng() % 4 != 0;
    const bool causal = rng() % 2 != 0;
    SCOPED_TRACE(b.describe() + " p=" + std::to_string(p) + (refine ? " +ref" : "") + (causal ? " vc" : ""));
    HtEncodeSettings settings;
    settings.cleanup_plane = p;
    settings.refinement = refine;
    settings.vertical_causal = causal;
    // The plain indices: without distortions (no rate target) no sample is
    // coded lower (entropy/ht/exponent_bounds.h; ht_exponent_bounds_test.cc).
    settings.distortions = false;
    auto coded = encode_ht_code_block(b.view(), b.mb, b.fraction_bits, settings);
    ASSERT_TRUE(coded.ok()) << coded.status().message();
    if (coded->num_passes == 0) {
      ASSERT_EQ(expected(b, p, 0, causal), std::vector<int32_t>(b.v.size(), 0));
      continue;
    }
    ASSERT_EQ(coded->num_passes, refine ? 3 : 1);
    ASSERT_EQ(coded->zero_bitplanes, b.mb - 1 - p);
    DecodedCodeBlockInfo info;
    ASSERT_EQ(decode(b, *coded, 1, causal, &info), expected(b, p, 0, causal));
    EXPECT_EQ(info.lowest_plane, p);
    EXPECT_FALSE(info.ended_in_significance_pass);
    if (!refine) continue;
    for (const CodingPass& pass : coded->passes) EXPECT_NE(coded->data[pass.cumulative_length - 1], 0xFF);
    // SigProp alone: the refinement segment cut at the SigProp pass.
    ASSERT_EQ(decode(b, *coded, 2, causal, &info), expected(b, p, 1, causal));
    EXPECT_EQ(info.lowest_plane, p - 1);
    EXPECT_TRUE(info.ended_in_significance_pass);
    ASSERT_EQ(decode(b, *coded, 3, causal, &info), expected(b, p, 2, causal));
    EXPECT_EQ(info.lowest_plane, p - 1);
    EXPECT_FALSE(info.ended_in_significance_pass);
  }
}

// Each pass's distortion_decrease is the drop of squared error (mid-point
// reconstruction, E.1.1.2) between what the decoder knows before and after
// it, measured against the finer values, in units of the index squared.
double squared_error(const Block& b, const std::vector<int32_t>& known, int plane) {
  double sum = 0.0;
  for (size_t i = 0; i < b.v.size(); ++i) {
    const double exact = std::ldexp(std::abs(static_cast<double>(b.v[i])), -b.fraction_bits);
    const double k = std::abs(static_cast<double>(known[i]));
    // A sample known to `plane` (one below for samples SigProp did not make
    // significant, handled by the caller's choice of plane per sample).
    const double recon = k == 0 ? 0.0 : k + (plane + b.fraction_bits > 0 ? std::ldexp(1.0, plane - 1) : 0.0);
    sum += (exact - recon) * (exact - recon);
  }
  return sum;
}

TEST(HtCodeBlock, DistortionDecreasesMatchTheDecodedValues) {
  std::mt19937 rng(3);
  for (int i = 0; i < 100; ++i) {
    const Block b = random_block(rng, static_cast<int>(rng() % 4));
    if (b.mb < 2) continue;
    const int p = 1 + static_cast<int>(rng() % static_cast<unsigned>(b.mb - 1));
    HtEncodeSettings settings;
    settings.cleanup_plane = p;
    settings.refinement = true;
    auto coded = encode_ht_code_block(b.view(), b.mb, b.fraction_bits, settings);
    ASSERT_TRUE(coded.ok());
    if (coded->num_passes == 0) continue;
    SCOPED_TRACE(b.describe() + " p=" + std::to_string(p));
    const std::vector<int32_t> zero(b.v.size(), 0);
    const double before = squared_error(b, zero, 0);
    // The decoded values: under a target (distortions asked for) with
    // fraction bits, some samples are coded one index lower than the plain
    // model's (entropy/ht/exponent_bounds.h).
    const double after_cleanup = squared_error(b, decode(b, *coded, 1, false), p);
    const double after_magref = squared_error(b, decode(b, *coded, 3, false), p - 1);
    const double scale = 1e-9 * (1 + before);
    EXPECT_NEAR(coded->passes[0].distortion_decrease, before - after_cleanup, scale);
    EXPECT_NEAR(coded->passes[1].distortion_decrease + coded->passes[2].distortion_decrease,
                after_cleanup - after_magref, scale);
  }
}

TEST(HtCodeBlock, VlcTablesCoverEveryQuad) {
  // Every significance pattern in every context (but the MEL-coded empty
  // quad in context 0) has a codeword, and one for every set of samples
  // that may carry the largest exponent.
  const ht::VlcEncodeTables& enc = ht::vlc_encode_tables();
  const ht::VlcDecodeTables& dec = ht::vlc_decode_tables();
  for (int row = 0; row < 2; ++row) {
    const auto& e = row == 0 ? enc.initial_row : enc.other_rows;
    const auto& d = row == 0 ? dec.initial_row : dec.other_rows;
    for (int c_q = 0; c_q < 8; ++c_q) {
      for (int rho = 0; rho < 16; ++rho) {
        for (int emb = 0; emb < 16; ++emb) {
          if ((emb & rho) != emb || (rho == 0 && c_q == 0) || (emb != 0 && rho == 0)) continue;
          const uint16_t entry = e[static_cast<size_t>(c_q << 8 | rho << 4 | emb)];
          SCOPED_TRACE("row " + std::to_string(row) + " c_q " + std::to_string(c_q) + " rho " +
                       std::to_string(rho) + " emb " + std::to_string(emb));
          ASSERT_GT(ht::encoded_length(entry), 0);
          // The codeword decodes back to rho, u_off and an e_k that the
          // encoder's choice rests on.
          const uint16_t back = d[static_cast<size_t>(c_q << 7 | ht::encoded_bits(entry))];
          EXPECT_EQ(ht::decoded_length(back), ht::encoded_length(entry));
          EXPECT_EQ(ht::decoded_rho(back), rho);
          EXPECT_EQ(ht::decoded_u_off(back), emb != 0 ? 1 : 0);
          EXPECT_EQ(ht::decoded_e_k(back), ht::encoded_e_k(entry));
          EXPECT_EQ(emb & ht::decoded_e_k(back), ht::decoded_e_1(back));
        }
      }
    }
  }
}

TEST(HtCodeBlock, RefusesImpossibleSettings) {
  const std::vector<int32_t> v(16, 3);
  const PlaneView<const int32_t> view{v.data(), 4, 4, 4};
  HtEncodeSettings settings;
  settings.cleanup_plane = 5;
  EXPECT_FALSE(encode_ht_code_block(view, 5, 0, settings).ok());
  settings.cleanup_plane = 0;
  settings.refinement = true;
  EXPECT_FALSE(encode_ht_code_block(view, 5, 0, settings).ok());
  EXPECT_FALSE(encode_ht_code_block(view, 1, 0).ok());  // 3 needs 2 bits
}

}  // namespace
}  // namespace mallat::entropy
