// The fast HT cleanup coder (entropy/ht/cleanup_encoder.cc,
// entropy/ht/cleanup_decoder.cc) against its plain reference
// (ht_cleanup_*_reference.cc): the same bytes out of the encoder, the same
// samples (and verdict) out of the decoder, over random blocks at every
// plane, Laplacian blocks like a DWT's subbands, and damaged segments
// (random bytes, flipped bytes, runs of 0xFF and 0x7F, cut short) that
// drive the readers' byte-by-byte and stuffing paths; each build of the
// fast coder this CPU can run (generic, BMI2). Also: skipping distortions changes no byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "entropy/ht/code_block.h"
#include "entropy/ht/passes.h"
#include "entropy/ht/vlc_tables.h"
#include "tests/entropy/ht_test_blocks.h"
#include "tests/entropy/laplacian_block.h"

namespace mallat::entropy {
namespace {

using ht_test::Block;

// Every instruction set this CPU runs (the BMI2 build where it has one).
std::vector<ht::CleanupIsa> isas() {
  std::vector<ht::CleanupIsa> out{ht::CleanupIsa::kGeneric};
  if (ht::cleanup_isa_available(ht::CleanupIsa::kBmi2)) out.push_back(ht::CleanupIsa::kBmi2);
  return out;
}

bool any_significant(PlaneView<const int32_t> v, int shift) {
  for (int64_t y = 0; y < v.height; ++y) {
    for (int64_t x = 0; x < v.width; ++x) {
      const int64_t c = v.at(x, y);
      if ((c < 0 ? -c : c) >> shift) return true;
    }
  }
  return false;
}

// Decodes `segment` both ways into w x h blocks and expects the same.
void expect_same_decode(std::span<const uint8_t> segment, int w, int h, int p, int planes_above,
                        const std::string& what) {
  std::vector<int32_t> plain(static_cast<size_t>(w) * h, 9);
  const bool plain_ok = ht::decode_cleanup_reference(segment, p, planes_above, {plain.data(), w, h, w});
  for (ht::CleanupIsa isa : isas()) {
    std::vector<int32_t> fast(plain.size(), 7);
    const bool fast_ok = ht::decode_cleanup(segment, p, planes_above, {fast.data(), w, h, w}, isa);
    ASSERT_EQ(fast_ok, plain_ok) << what << " isa " << static_cast<int>(isa);
    ASSERT_EQ(fast, plain) << what << " isa " << static_cast<int>(isa);
  }
}

// Encodes v at plane p both ways, expects the same bytes, and decodes them
// both ways.
void check_block(PlaneView<const int32_t> v, int mb, int fraction_bits, int p, const std::string& what) {
  const int shift = p + fraction_bits;
  if (!any_significant(v, shift)) return;  // encode_cleanup needs one
  std::vector<uint8_t> plain;
  ht::encode_cleanup_reference(v, shift, plain);
  for (ht::CleanupIsa isa : isas()) {
    std::vector<uint8_t> fast;
    ht::encode_cleanup(v, shift, fast, isa);
    ASSERT_EQ(fast, plain) << what << " isa " << static_cast<int>(isa);
  }
  expect_same_decode(plain, static_cast<int>(v.width), static_cast<int>(v.height), p, mb - p, what);
}

TEST(HtFast, RandomBlocksAtEveryPlaneCodeAsTheReference) {
  std::mt19937 rng(20261124);
  for (int i = 0; i < 300; ++i) {
    const Block b = ht_test::random_block(rng, 2);
    for (int p = 0; p < b.mb; p += 1 + b.mb / 6) {
      check_block(b.view(), b.mb, b.fraction_bits, p, b.describe() + " p=" + std::to_string(p));
    }
  }
}

TEST(HtFast, LaplacianBlocksCodeAsTheReference) {
  for (double scale : {0.3, 1.0, 4.0, 32.0, 256.0, 4096.0}) {
    for (unsigned seed = 1; seed <= 4; ++seed) {
      const std::vector<int32_t> v = laplacian_block(scale, seed);
      for (int p : {0, 1, 3}) {
        check_block({v.data(), 64, 64, 64}, 20, 0, p, "scale " + std::to_string(scale) + " p=" + std::to_string(p));
      }
    }
  }
}

// What the fast decoder's vector path relies on (entropy/ht/magsgn_quad.h): in every
// decoding table entry e_1 is within e_k and e_k within rho.
TEST(HtFast, DecodingTableExponentsAreWithinSignificance) {
  const ht::VlcDecodeTables& t = ht::vlc_decode_tables();
  for (const auto* table : {&t.initial_row, &t.other_rows}) {
    for (size_t i = 0; i < table->size(); ++i) {
      const uint16_t e = (*table)[i];
      EXPECT_EQ(ht::decoded_e_1(e) & ~ht::decoded_e_k(e), 0) << i;
      EXPECT_EQ(ht::decoded_e_k(e) & ~ht::decoded_rho(e), 0) << i;
    }
  }
}

// Every code-block size of A.6.1 (sides 4..1024, at most 4096 samples) and
// the odd sizes one less (blocks cut by an image edge), at Mb from 1 to 30:
// the same bytes and samples both ways, also with the segment cut short.
TEST(HtFast, EveryCodeBlockSizeCodesAsTheReference) {
  std::mt19937 rng(1414);
  for (int xcb = 2; xcb <= 10; ++xcb) {
    for (int ycb = 2; xcb + ycb <= 12 && ycb <= 10; ++ycb) {
      for (int cut : {0, 1}) {
        for (int mb : {1, 4, 9, 17, 30}) {
          Block b;
          b.w = (1 << xcb) - cut;
          b.h = (1 << ycb) - cut;
          b.mb = mb;
          b.v.resize(static_cast<size_t>(b.w) * b.h);
          std::uniform_real_distribution<double> u(0, 1);
          const double zeros = u(rng);
          for (int32_t& x : b.v) {
            if (u(rng) < zeros) continue;
            const int top = static_cast<int>(u(rng) * mb);
            const auto m = static_cast<int32_t>(u(rng) * static_cast<double>((int64_t{1} << (top + 1)) - 1));
            x = rng() % 2 ? -m : m;
          }
          const int p = static_cast<int>(rng() % static_cast<unsigned>(mb));
          const std::string what = b.describe() + " p=" + std::to_string(p);
          check_block(b.view(), mb, 0, p, what);
          if (!any_significant(b.view(), p)) continue;
          std::vector<uint8_t> segment;
          ht::encode_cleanup(b.view(), p, segment);
          segment.resize(segment.size() * (rng() % 100) / 100);
          expect_same_decode(segment, b.w, b.h, p, mb - p, what + " cut to " + std::to_string(segment.size()));
        }
      }
    }
  }
}

TEST(HtFast, DamagedSegmentsDecodeAsTheReference) {
  std::mt19937 rng(77);
  for (int i = 0; i < 400; ++i) {
    const Block b = ht_test::random_block(rng, 0);
    std::vector<uint8_t> segment;
    const int p = static_cast<int>(rng() % static_cast<unsigned>(b.mb));
    if (any_significant(b.view(), p)) {
      ht::encode_cleanup(b.view(), p, segment);
    } else {
      segment.resize(1 + rng() % 300);
    }
    const std::string what = b.describe() + " case " + std::to_string(i);
    switch (i % 5) {
      case 0:  // every byte random, the locator kept
        for (size_t k = 0; k + 2 < segment.size(); ++k) segment[k] = static_cast<uint8_t>(rng());
        break;
      case 1:  // a few bytes flipped
        for (int k = 0; k < 3 && !segment.empty(); ++k) segment[rng() % segment.size()] ^= static_cast<uint8_t>(rng());
        break;
      case 2:  // runs of 0xFF and 0x7F (stuffing on both sides)
        for (size_t k = 0; k + 2 < segment.size(); ++k)
          if (rng() % 4 == 0) segment[k] = rng() % 2 ? 0xFF : 0x7F;
        break;
      case 3:  // cut short
        segment.resize(segment.size() - std::min<size_t>(segment.size(), rng() % 8));
        break;
      default:  // as encoded
        break;
    }
    expect_same_decode(segment, b.w, b.h, p, b.mb - p, what);
  }
}

TEST(HtFast, SkippingDistortionsChangesNoByte) {
  std::mt19937 rng(5);
  for (int i = 0; i < 40; ++i) {
    const Block b = ht_test::random_block(rng, 2);
    HtEncodeSettings with;
    with.cleanup_plane = b.mb > 1 ? 1 : 0;
    with.refinement = b.mb > 1;
    HtEncodeSettings without = with;
    without.distortions = false;
    const auto a = encode_ht_code_block(b.view(), b.mb, b.fraction_bits, with);
    const auto c = encode_ht_code_block(b.view(), b.mb, b.fraction_bits, without);
    ASSERT_TRUE(a.ok() && c.ok()) << b.describe();
    EXPECT_EQ(a->data, c->data) << b.describe();
    ASSERT_EQ(a->passes.size(), c->passes.size()) << b.describe();
    for (size_t k = 0; k < c->passes.size(); ++k) {
      EXPECT_EQ(a->passes[k].cumulative_length, c->passes[k].cumulative_length) << b.describe();
      EXPECT_EQ(c->passes[k].distortion_decrease, 0.0) << b.describe();
    }
  }
}

}  // namespace
}  // namespace mallat::entropy
