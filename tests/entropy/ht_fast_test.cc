// The fast HT cleanup coder (entropy/ht/cpu/cleanup_encoder_kernel.h,
// entropy/ht/cpu/cleanup_decoder_kernel.h) against its plain reference
// (entropy/ht/cleanup_*_reference.cc): the same bytes out of the encoder, the same
// samples (and verdict) out of the decoder, over random blocks at every
// plane, Laplacian blocks like a DWT's subbands, and damaged segments
// (random bytes, flipped bytes, runs of 0xFF and 0x7F, cut short) that
// drive the readers' byte-by-byte and stuffing paths; each instruction
// set's kernels (entropy/ht/cpu/) as a test of its own: one the CPU lacks
// fails, save AVX-512, which is skipped with a message. Also: skipping
// distortions changes no byte, and the cleanup's decrease in integers
// (without a branch, for vector lanes) is the plain per-sample sum, and the
// CPU's copy of it in AVX2 lanes the shared one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "entropy/ht/code_block.h"
#include "entropy/ht/passes.h"
#include "entropy/ht/shared_code_block.h"
#include "entropy/ht/vlc_tables.h"
#include "tests/entropy/ht_test_blocks.h"
#include "tests/entropy/laplacian_block.h"

namespace mallat::entropy {
namespace {

using ht_test::Block;

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
void expect_same_decode(ht::CleanupIsa isa, std::span<const uint8_t> segment, int w, int h, int p, int planes_above,
                        const std::string& what) {
  std::vector<int32_t> plain(static_cast<size_t>(w) * h, 9);
  const bool plain_ok = ht::decode_cleanup_reference(segment, p, planes_above, {plain.data(), w, h, w});
  std::vector<int32_t> fast(plain.size(), 7);
  const bool fast_ok = ht::decode_cleanup(segment, p, planes_above, {fast.data(), w, h, w}, isa);
  ASSERT_EQ(fast_ok, plain_ok) << what;
  ASSERT_EQ(fast, plain) << what;
}

// Encodes v at plane p both ways, expects the same bytes, and decodes them
// both ways.
void check_block(ht::CleanupIsa isa, PlaneView<const int32_t> v, int mb, int fraction_bits, int p,
                 const std::string& what) {
  const int shift = p + fraction_bits;
  if (!any_significant(v, shift)) return;  // encode_cleanup needs one
  std::vector<uint8_t> plain;
  ht::encode_cleanup_reference(v, shift, plain);
  std::vector<uint8_t> fast;
  ht::encode_cleanup(v, shift, fast, isa);
  ASSERT_EQ(fast, plain) << what;
  expect_same_decode(isa, plain, static_cast<int>(v.width), static_cast<int>(v.height), p, mb - p, what);
}

// One instruction set's kernels, which must exist on this CPU (AVX-512 may
// be missing: then skipped, and said so).
class HtIsa : public testing::TestWithParam<ht::CleanupIsa> {
 protected:
  void SetUp() override {
    const ht::CleanupIsa isa = GetParam();
    if (ht::cleanup_isa_available(isa)) return;
    if (isa == ht::CleanupIsa::kAvx512) {
      GTEST_SKIP() << "this CPU lacks AVX-512 F/CD/BW/VL: the avx512 HT cleanup kernels are NOT tested here";
    }
#if defined(__x86_64__) || defined(__i386__)
    FAIL() << "this x86 CPU lacks AVX2/BMI2/LZCNT/POPCNT: the avx2 HT cleanup kernels cannot be tested";
#else
    GTEST_SKIP() << "not an x86 build: it has no avx2 HT cleanup kernels";
#endif
  }
  ht::CleanupIsa isa() const { return GetParam(); }
};

INSTANTIATE_TEST_SUITE_P(, HtIsa,
                         testing::Values(ht::CleanupIsa::kGeneric, ht::CleanupIsa::kAvx2, ht::CleanupIsa::kAvx512),
                         [](const testing::TestParamInfo<ht::CleanupIsa>& info) {
                           return std::string(info.param == ht::CleanupIsa::kGeneric ? "generic"
                                              : info.param == ht::CleanupIsa::kAvx2  ? "avx2"
                                                                                     : "avx512");
                         });

// The ISA the tests ask for is the one that runs (resolve does not fall
// back where the CPU has it).
TEST_P(HtIsa, RunsItsOwnKernels) { EXPECT_EQ(ht::resolve_cleanup_isa(isa()), isa()); }

TEST_P(HtIsa, RandomBlocksAtEveryPlaneCodeAsTheReference) {
  std::mt19937 rng(20261124);
  for (int i = 0; i < 300; ++i) {
    const Block b = ht_test::random_block(rng, 2);
    for (int p = 0; p < b.mb; p += 1 + b.mb / 6) {
      check_block(isa(), b.view(), b.mb, b.fraction_bits, p, b.describe() + " p=" + std::to_string(p));
    }
  }
}

TEST_P(HtIsa, LaplacianBlocksCodeAsTheReference) {
  for (double scale : {0.3, 1.0, 4.0, 32.0, 256.0, 4096.0}) {
    for (unsigned seed = 1; seed <= 4; ++seed) {
      const std::vector<int32_t> v = laplacian_block(scale, seed);
      for (int p : {0, 1, 3}) {
        check_block(isa(), {v.data(), 64, 64, 64}, 20, 0, p, "scale " + std::to_string(scale) + " p=" + std::to_string(p));
      }
    }
  }
}

// Every magnitude depth Mb = 1..31 (magnitudes up to 2^31 - 1) at planes
// 0, Mb / 2 and Mb - 1, on blocks wide enough for every vector width, some
// samples at the top of the range, some zero, signs mixed.
TEST_P(HtIsa, EveryMagnitudeDepthCodesAsTheReference) {
  std::mt19937 rng(3131);
  for (int mb = 1; mb <= 31; ++mb) {
    Block b;
    b.w = 37;
    b.h = 9;
    b.mb = mb;
    b.v.resize(static_cast<size_t>(b.w) * b.h);
    const int64_t top = (int64_t{1} << mb) - 1;
    for (int32_t& x : b.v) {
      const unsigned kind = rng() % 4;
      const int64_t m = kind == 0 ? 0 : kind == 1 ? top : static_cast<int64_t>(rng() % static_cast<uint64_t>(top + 1));
      x = static_cast<int32_t>(rng() % 2 ? -m : m);
    }
    for (int p : {0, mb / 2, mb - 1}) check_block(isa(), b.view(), mb, 0, p, b.describe() + " p=" + std::to_string(p));
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
TEST_P(HtIsa, EveryCodeBlockSizeCodesAsTheReference) {
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
          check_block(isa(), b.view(), mb, 0, p, what);
          if (!any_significant(b.view(), p)) continue;
          std::vector<uint8_t> segment;
          ht::encode_cleanup(b.view(), p, segment, isa());
          segment.resize(segment.size() * (rng() % 100) / 100);
          expect_same_decode(isa(), segment, b.w, b.h, p, mb - p, what + " cut to " + std::to_string(segment.size()));
        }
      }
    }
  }
}

TEST_P(HtIsa, DamagedSegmentsDecodeAsTheReference) {
  std::mt19937 rng(77);
  for (int i = 0; i < 400; ++i) {
    const Block b = ht_test::random_block(rng, 0);
    std::vector<uint8_t> segment;
    const int p = static_cast<int>(rng() % static_cast<unsigned>(b.mb));
    if (any_significant(b.view(), p)) {
      ht::encode_cleanup(b.view(), p, segment, isa());
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
    expect_same_decode(isa(), segment, b.w, b.h, p, b.mb - p, what);
  }
}

// Without fraction bits (the reversible path): with fraction bits the
// distortions (a rate target) also let the coder lower exponent bounds
// (entropy/ht/exponent_bounds.h, ht_exponent_bounds_test.cc).
TEST(HtFast, SkippingDistortionsChangesNoByte) {
  std::mt19937 rng(5);
  for (int i = 0; i < 40; ++i) {
    const Block b = ht_test::random_block(rng, 0);
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

// The plain sum: each significant sample's m^2 less its error left.
double plain_cleanup_decrease(PlaneView<const int32_t> v, int shift) {
  int64_t sum = 0;
  for (int64_t y = 0; y < v.height; ++y) {
    for (int64_t x = 0; x < v.width; ++x) {
      const int64_t c = v.at(x, y);
      const auto m = static_cast<uint32_t>(c < 0 ? -c : c);
      if ((m >> shift) == 0) continue;
      sum += static_cast<int64_t>(uint64_t{m} * m) - static_cast<int64_t>(ht::squared_error(m, shift));
    }
  }
  return static_cast<double>(sum);
}

TEST(HtFast, CleanupDecreaseIsThePlainSum) {
  std::mt19937 rng(11);
  for (int i = 0; i < 200; ++i) {
    const Block b = ht_test::random_block(rng, 8);
    // The integer path: magnitudes below 2^24.
    if (b.mb + b.fraction_bits > 24) continue;
    for (int shift = 0; shift < b.mb + b.fraction_bits; shift += 1 + i % 3) {
      EXPECT_EQ(ht_cleanup_decrease(b.view(), shift, 0), plain_cleanup_decrease(b.view(), shift))
          << b.describe() << " shift " << shift;
    }
  }
}

// The CPU's copies in AVX2 and AVX-512 lanes (ht_cleanup_decrease_cpu)
// against the shared one they replace in encode_ht_code_block: the same
// value, to the bit, on both paths (the integers below 2^24, doubles above;
// `all` the block's OR), over shapes whose rows end mid-vector.
TEST(HtFast, CpuCleanupDecreaseIsTheSharedOne) {
  for (const ht::CleanupIsa isa : {ht::CleanupIsa::kGeneric, ht::CleanupIsa::kAvx2, ht::CleanupIsa::kAvx512}) {
    if (!ht::cleanup_isa_available(isa)) continue;
    std::mt19937 rng(12);
    for (int i = 0; i < 300; ++i) {
      const Block b = ht_test::random_block(rng, 8);
      uint32_t all = 0;
      for (int64_t y = 0; y < b.view().height; ++y)
        for (int64_t x = 0; x < b.view().width; ++x) all |= ht::detail::magnitude_of(b.view().at(x, y));
      for (int shift = 0; shift < b.mb + b.fraction_bits; shift += 1 + i % 3) {
        EXPECT_EQ(ht_cleanup_decrease_cpu(b.view(), shift, all, isa), ht_cleanup_decrease(b.view(), shift, all))
            << ht::cleanup_isa_name(isa) << " " << b.describe() << " shift " << shift;
      }
    }
  }
}

// The integer lanes at their range's top (magnitudes up to 2^24 - 1, the
// factors (m - e)(m + e) up to 2^25): the shared sum at every shift, the
// rows' lengths ending anywhere in a vector.
TEST(HtFast, CpuCleanupDecreaseAtTheIntegerRangesTop) {
  std::mt19937 rng(13);
  for (const ht::CleanupIsa isa : {ht::CleanupIsa::kAvx2, ht::CleanupIsa::kAvx512}) {
    if (!ht::cleanup_isa_available(isa)) continue;
    for (const int w : {64, 33, 16, 15, 9, 8, 1}) {
      ht_test::Block b;
      b.w = w;
      b.h = 4096 / w > 1024 ? 1024 : 4096 / w;
      b.mb = 16;
      b.fraction_bits = 8;
      b.v.resize(static_cast<size_t>(b.w) * b.h);
      const int32_t top = (int32_t{1} << 24) - 1;
      uint32_t all = 0;
      for (int32_t& x : b.v) {
        const auto m = static_cast<int32_t>(rng() % 3 == 0 ? top - static_cast<int32_t>(rng() % 4096)
                                                            : static_cast<int32_t>(rng() % (1u << 24)));
        x = rng() % 2 ? -m : m;
        all |= static_cast<uint32_t>(m);
      }
      for (int shift = 0; shift <= 25; ++shift) {
        EXPECT_EQ(ht_cleanup_decrease_cpu(b.view(), shift, all, isa), ht_cleanup_decrease(b.view(), shift, all))
            << ht::cleanup_isa_name(isa) << " " << b.describe() << " shift " << shift;
        EXPECT_EQ(ht_cleanup_decrease_cpu(b.view(), shift, all, isa), plain_cleanup_decrease(b.view(), shift))
            << ht::cleanup_isa_name(isa) << " " << b.describe() << " shift " << shift;
      }
    }
  }
}

}  // namespace
}  // namespace mallat::entropy
