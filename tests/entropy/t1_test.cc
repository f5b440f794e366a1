#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "entropy/ebcot/ebcot.h"
#include "entropy/ebcot/internal.h"
#include "entropy/ebcot/schedule.h"

namespace mallat::entropy {
namespace {

struct Block {
  int w = 0, h = 0;
  std::vector<int32_t> v;
  PlaneView<const int32_t> view() const { return {v.data(), w, h, w}; }
};

// Laplacian-like magnitudes below 2^bits, with a share of zeros (sparse).
Block random_block(std::mt19937& rng, int w, int h, int bits, double zero_share) {
  Block b{w, h, std::vector<int32_t>(static_cast<size_t>(w) * h)};
  std::uniform_real_distribution<double> u(0, 1);
  for (auto& x : b.v) {
    if (u(rng) < zero_share) continue;
    const int top = static_cast<int>(u(rng) * bits);  // spread over all planes
    const uint32_t limit = top >= 31 ? 0x7FFFFFFFu : (1u << top) * 2 - 1;
    uint32_t m = static_cast<uint32_t>(u(rng) * limit);
    if (bits < 31 && m >= (1u << bits)) m = (1u << bits) - 1;
    x = (rng() & 1) ? -static_cast<int32_t>(m) : static_cast<int32_t>(m);
  }
  return b;
}

std::vector<CodeBlockStyle> all_styles() {
  std::vector<CodeBlockStyle> styles;
  for (int byte = 0; byte < 64; ++byte) styles.push_back(CodeBlockStyle::from_byte(static_cast<uint8_t>(byte)));
  return styles;
}

std::vector<int32_t> decode(const EncodedCodeBlock& e, int passes, uint32_t bytes, int mb,
                            BandOrientation o, const CodeBlockStyle& style, int w, int h,
                            std::vector<uint8_t>* known = nullptr) {
  std::vector<int32_t> out(static_cast<size_t>(w) * h, 12345);
  const std::vector<uint32_t> lengths = codeword_segment_lengths(e, passes);
  CodeBlockToDecode in;
  in.data = std::span<const uint8_t>(e.data.data(), bytes);
  in.segment_lengths = lengths;
  in.num_passes = passes;
  in.zero_bitplanes = e.zero_bitplanes;
  in.num_bitplanes = mb;
  in.orientation = o;
  in.style = style;
  PlaneView<uint8_t> kp;
  if (known != nullptr) {
    known->assign(out.size(), 255);
    kp = {known->data(), w, h, w};
  }
  auto r = decode_code_block(in, PlaneView<int32_t>{out.data(), w, h, w}, kp);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  std::vector<int32_t> ref(out.size(), -777);
  EXPECT_TRUE(decode_code_block_reference(in, PlaneView<int32_t>{ref.data(), w, h, w}).ok());
  EXPECT_EQ(out, ref) << "fast and reference decoders differ";
  return out;
}

void check_block(const Block& b, int mb, BandOrientation o, const CodeBlockStyle& style,
                 const std::string& what, bool check_prefixes) {
  SCOPED_TRACE(what + " style " + std::to_string(style.to_byte()) + " orientation " +
               std::to_string(static_cast<int>(o)));
  auto fast = encode_code_block(b.view(), o, mb, style);
  ASSERT_TRUE(fast.ok()) << fast.status().to_string();
  auto ref = encode_code_block_reference(b.view(), o, mb, style);
  ASSERT_TRUE(ref.ok());
  ASSERT_EQ(fast->data, ref->data) << "fast and reference encoders differ";
  ASSERT_EQ(fast->num_passes, ref->num_passes);
  ASSERT_EQ(fast->zero_bitplanes, ref->zero_bitplanes);
  for (int i = 0; i < fast->num_passes; ++i) {
    ASSERT_EQ(fast->passes[i].cumulative_length, ref->passes[i].cumulative_length) << i;
    ASSERT_EQ(fast->passes[i].terminated, ref->passes[i].terminated) << i;
    ASSERT_NEAR(fast->passes[i].distortion_decrease, ref->passes[i].distortion_decrease,
                1e-9 * std::abs(ref->passes[i].distortion_decrease) + 1e-9);
    if (i > 0) {
      ASSERT_GE(fast->passes[i].cumulative_length, fast->passes[i - 1].cumulative_length);
    }
  }
  const EncodedCodeBlock& e = *fast;
  const auto full = decode(e, e.num_passes, static_cast<uint32_t>(e.data.size()), mb, o, style, b.w, b.h);
  ASSERT_EQ(full, b.v) << "round trip";
  if (!check_prefixes) return;
  // Squared error in the integer domain falls by each pass's distortion decrease.
  double total = 0;
  for (int32_t x : b.v) total += static_cast<double>(x) * x;
  double remaining = total;
  const int planes = mb - e.zero_bitplanes;
  for (int n = 1; n <= e.num_passes; ++n) {
    remaining -= e.passes[n - 1].distortion_decrease;
    std::vector<uint8_t> known;
    const auto all_bytes = decode(e, n, static_cast<uint32_t>(e.data.size()), mb, o, style, b.w, b.h, &known);
    // A prefix of the data as long as the pass's length decodes the same.
    const auto prefix = decode(e, n, e.passes[n - 1].cumulative_length, mb, o, style, b.w, b.h);
    ASSERT_EQ(prefix, all_bytes) << "truncated to pass " << n << " length";
    // Independent truncation: after a cleanup pass, every magnitude is its
    // bits at the pass's plane and above.
    const int plane = planes - 1 - (n + 1) / 3;
    const bool after_cleanup = n % 3 == 1;
    double err = 0;
    for (size_t i = 0; i < b.v.size(); ++i) {
      const int64_t v = b.v[i];
      const uint64_t mag = static_cast<uint64_t>(v < 0 ? -v : v);
      const int p = known[i];
      ASSERT_TRUE(p == plane || (p == plane + 1 && n % 3 == 2)) << "known plane " << p;
      uint64_t expect = mag >> p << p;
      if (after_cleanup) {
        ASSERT_EQ(p, plane);
      }
      if (all_bytes[i] == 0) {
        ASSERT_EQ(mag >> (plane + 1), 0u) << "sample " << i << " lost";
        if (after_cleanup) {
          ASSERT_EQ(expect, 0u);
        }
      } else {
        ASSERT_EQ(static_cast<uint64_t>(std::abs(static_cast<int64_t>(all_bytes[i]))), expect) << "n " << n << " plane " << plane << " p " << p << " mag " << mag << " i " << i << " of " << e.num_passes;
        ASSERT_EQ(all_bytes[i] < 0, v < 0);
      }
      const double rec = all_bytes[i] == 0 ? 0.0 : static_cast<double>(expect) + (p > 0 ? std::ldexp(1.0, p - 1) : 0.0);
      err += (static_cast<double>(mag) - rec) * (static_cast<double>(mag) - rec);
    }
    ASSERT_NEAR(err, remaining, 1e-6 * total + 1e-6) << "after pass " << n;
  }
}

const BandOrientation kOrientations[] = {BandOrientation::kLL, BandOrientation::kHL,
                                         BandOrientation::kLH, BandOrientation::kHH};

TEST(Tier1, RoundTripSizesOrientationsDefaultMode) {
  std::mt19937 rng(1);
  const int sizes[][2] = {{1, 1}, {4, 4}, {3, 17}, {64, 64}, {32, 128}, {1024, 4}, {4, 1024}, {17, 5}};
  for (const auto& s : sizes) {
    for (BandOrientation o : kOrientations) {
      for (double zeros : {0.0, 0.6, 0.97}) {
        const int mb = 1 + static_cast<int>(rng() % 14);
        const Block b = random_block(rng, s[0], s[1], mb, zeros);
        check_block(b, mb + static_cast<int>(rng() % 3), o, CodeBlockStyle{},
                    std::to_string(s[0]) + "x" + std::to_string(s[1]), s[0] * s[1] <= 4096 / 4);
      }
    }
  }
}

TEST(Tier1, EveryModeSwitchCombination) {
  std::mt19937 rng(2);
  for (const CodeBlockStyle& style : all_styles()) {
    for (BandOrientation o : kOrientations) {
      const int w = 1 + static_cast<int>(rng() % 40), h = 1 + static_cast<int>(rng() % 40);
      const int mb = 1 + static_cast<int>(rng() % 16);
      const Block b = random_block(rng, w, h, mb, (rng() % 3) * 0.4);
      check_block(b, mb, o, style, std::to_string(w) + "x" + std::to_string(h), true);
    }
  }
}

TEST(Tier1, EveryStripeRemainderAndBlockEdge) {
  // The fast passes specialise full stripes and the short last one (1..3
  // rows), and the cleanup pass's run-length mode needs a full stripe: every
  // height remainder, thin and wide blocks, dense and sparse, with the mode
  // switches that change the neighbourhoods (VSC) and the coders (BYPASS).
  std::mt19937 rng(31);
  const uint8_t styles[] = {0x00, 0x08, 0x01, 0x3F};
  for (int h = 1; h <= 9; ++h) {
    for (int w : {1, 2, 5, 64}) {
      for (uint8_t byte : styles) {
        const BandOrientation o = kOrientations[rng() % 4];
        const Block b = random_block(rng, w, h, 10, (rng() % 2) * 0.8);
        check_block(b, 10, o, CodeBlockStyle::from_byte(byte), std::to_string(w) + "x" + std::to_string(h),
                    true);
      }
    }
  }
}

TEST(Tier1, RunLengthColumnsWithEveryPatternOfFourBits) {
  // The fast encoder finds a run-length column's first significant sample
  // from its four magnitude bits at once (D.3.4): every pattern of the four
  // bits in an isolated column (zero columns between, so each stays in
  // run-length mode), both signs, at the top plane and below it (where the
  // earlier planes leave some columns out of run-length mode).
  for (int plane : {0, 2}) {
    for (bool negative : {false, true}) {
      for (uint8_t style : {0x00, 0x08}) {
        Block b{32, 8, std::vector<int32_t>(32 * 8, 0)};
        for (int pattern = 0; pattern < 16; ++pattern) {
          for (int r = 0; r < 4; ++r) {
            if (!((pattern >> r) & 1)) continue;
            const int32_t m = (1 << plane) | (plane > 0 && r == pattern % 4 ? 1 << (plane + 1) : 0);
            b.v[static_cast<size_t>(r + 4 * (pattern % 2)) * 32 + 2 * pattern] = negative ? -m : m;
          }
        }
        for (BandOrientation o : kOrientations) {
          check_block(b, plane + 2, o, CodeBlockStyle::from_byte(style), "run-length " + std::to_string(plane), true);
        }
      }
    }
  }
}

TEST(Tier1, WithoutDistortionsTheSameBytesAndLengths) {
  // A caller with no rate target asks for no distortions: the MQ-coded
  // passes then skip measuring them (the raw ones still do), and the
  // bytes, lengths and terminations are those of the measuring encoder.
  std::mt19937 rng(17);
  for (uint8_t style : {0x00, 0x08, 0x01, 0x3F}) {
    for (BandOrientation o : kOrientations) {
      const int w = 1 + static_cast<int>(rng() % 64), h = 1 + static_cast<int>(rng() % 64);
      const Block b = random_block(rng, w, h, 12, (rng() % 3) * 0.4);
      const CodeBlockStyle s = CodeBlockStyle::from_byte(style);
      auto measured = encode_code_block(b.view(), o, 12, s);
      auto plain = encode_code_block(b.view(), o, 12, s, 0, false);
      ASSERT_TRUE(measured.ok() && plain.ok());
      ASSERT_EQ(plain->data, measured->data);
      ASSERT_EQ(plain->num_passes, measured->num_passes);
      ASSERT_EQ(plain->zero_bitplanes, measured->zero_bitplanes);
      for (int i = 0; i < plain->num_passes; ++i) {
        ASSERT_EQ(plain->passes[i].cumulative_length, measured->passes[i].cumulative_length) << i;
        ASSERT_EQ(plain->passes[i].terminated, measured->passes[i].terminated) << i;
        if (!pass_is_raw(s, i)) {
          ASSERT_EQ(plain->passes[i].distortion_decrease, 0.0) << i;
        }
      }
    }
  }
}

TEST(Tier1, LargeMagnitudes) {
  std::mt19937 rng(5);
  for (int mb : {28, 30, 31}) {
    for (CodeBlockStyle style : {CodeBlockStyle{}, CodeBlockStyle::from_byte(0x3F), CodeBlockStyle::from_byte(0x01)}) {
      const Block b = random_block(rng, 16, 16, mb, 0.3);
      check_block(b, mb, BandOrientation::kHH, style, "large", true);
    }
  }
  Block extreme{2, 2, {0x7FFFFFFF, -0x7FFFFFFF, 1, -(1 << 30)}};
  check_block(extreme, 31, BandOrientation::kLL, CodeBlockStyle{}, "extreme", true);
}

// Fraction bits: coefficients of F extra low bits code to the same bytes,
// passes and lengths as their indices (value >> F), in the fast and the
// reference encoder; each pass's distortion decrease is the fall of the
// squared error of the finer values (value / 2^F) under mid-point
// reconstruction, in units of the index squared.
TEST(Tier1, FractionBitsCodeTheIndicesAndMeasureTheFinerValues) {
  std::mt19937 rng(41);
  for (int trial = 0; trial < 24; ++trial) {
    const int fraction = 1 + trial % 6;
    const int mb = 3 + static_cast<int>(rng() % 10);
    const int w = 1 + static_cast<int>(rng() % 64), h = 1 + static_cast<int>(rng() % 64);
    const Block fine = random_block(rng, w, h, mb + fraction, trial % 3 == 0 ? 0.8 : 0.3);
    Block indices{w, h, fine.v};
    for (int32_t& x : indices.v) x = x < 0 ? -((-x) >> fraction) : x >> fraction;
    const CodeBlockStyle style = CodeBlockStyle::from_byte(trial % 4 == 3 ? 0x3F : 0x00);
    const BandOrientation o = kOrientations[trial % 4];
    SCOPED_TRACE("trial " + std::to_string(trial));
    auto plain = encode_code_block(indices.view(), o, mb, style);
    auto fast = encode_code_block(fine.view(), o, mb, style, fraction);
    auto ref = encode_code_block_reference(fine.view(), o, mb, style, fraction);
    ASSERT_TRUE(plain.ok() && fast.ok() && ref.ok());
    ASSERT_EQ(fast->data, plain->data);
    ASSERT_EQ(ref->data, plain->data);
    ASSERT_EQ(fast->num_passes, plain->num_passes);
    ASSERT_EQ(fast->zero_bitplanes, plain->zero_bitplanes);
    // Error of the finer values after n passes, from the planes a decoder knows.
    auto error_after = [&](int n) {
      double err = 0;
      if (n == 0) {
        for (int32_t x : fine.v) err += std::ldexp(static_cast<double>(x), -fraction) * std::ldexp(static_cast<double>(x), -fraction);
        return err;
      }
      std::vector<uint8_t> known;
      const auto got = decode(*plain, n, static_cast<uint32_t>(plain->data.size()), mb, o, style, w, h, &known);
      for (size_t i = 0; i < fine.v.size(); ++i) {
        const double v = std::ldexp(std::abs(static_cast<double>(fine.v[i])), -fraction);
        const double m = std::abs(static_cast<double>(got[i]));
        const double rec = m == 0 ? 0.0 : m + (known[i] > 0 ? std::ldexp(1.0, known[i] - 1) : 0.5);
        err += (v - rec) * (v - rec);
      }
      return err;
    };
    double before = error_after(0);
    for (int n = 1; n <= fast->num_passes; ++n) {
      const double after = error_after(n);
      ASSERT_NEAR(fast->passes[n - 1].distortion_decrease, before - after, 1e-9 * before + 1e-9) << "pass " << n;
      ASSERT_NEAR(ref->passes[n - 1].distortion_decrease, before - after, 1e-9 * before + 1e-9) << "pass " << n;
      ASSERT_EQ(fast->passes[n - 1].cumulative_length, plain->passes[n - 1].cumulative_length);
      before = after;
    }
  }
  // Mb + F above 31 is refused.
  Block one{1, 1, {1}};
  EXPECT_FALSE(encode_code_block(one.view(), BandOrientation::kLL, 28, CodeBlockStyle{}, 4).ok());
  EXPECT_FALSE(encode_code_block_reference(one.view(), BandOrientation::kLL, 28, CodeBlockStyle{}, 4).ok());
}

TEST(Tier1, AllZeroBlockHasNoPasses) {
  Block b{8, 8, std::vector<int32_t>(64, 0)};
  auto e = encode_code_block(b.view(), BandOrientation::kLL, 9, CodeBlockStyle{});
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->num_passes, 0);
  EXPECT_EQ(e->zero_bitplanes, 9);
  EXPECT_TRUE(e->data.empty());
}

TEST(Tier1, RejectsBadArguments) {
  Block b{2, 2, {1, 2, 3, 8}};
  EXPECT_FALSE(encode_code_block(b.view(), BandOrientation::kLL, 3, CodeBlockStyle{}).ok());
  EXPECT_TRUE(encode_code_block(b.view(), BandOrientation::kLL, 4, CodeBlockStyle{}).ok());
  Block big{2048, 1, std::vector<int32_t>(2048, 1)};
  EXPECT_FALSE(encode_code_block(big.view(), BandOrientation::kLL, 4, CodeBlockStyle{}).ok());
  Block min{2, 1, {INT32_MIN, 0}};
  EXPECT_FALSE(encode_code_block(min.view(), BandOrientation::kLL, 31, CodeBlockStyle{}).ok());

  std::vector<int32_t> out(4);
  CodeBlockToDecode in;
  in.num_bitplanes = 4;
  in.zero_bitplanes = 1;
  in.num_passes = 8;  // 3 planes allow 7
  EXPECT_FALSE(decode_code_block(in, PlaneView<int32_t>{out.data(), 2, 2, 2}).ok());
  in.num_passes = 7;
  EXPECT_TRUE(decode_code_block(in, PlaneView<int32_t>{out.data(), 2, 2, 2}).ok());
  in.zero_bitplanes = 5;
  in.num_passes = 0;
  EXPECT_FALSE(decode_code_block(in, PlaneView<int32_t>{out.data(), 2, 2, 2}).ok());
}

TEST(Tier1, CorruptAndTruncatedInputDoesNotCrash) {
  std::mt19937 rng(9);
  for (int trial = 0; trial < 300; ++trial) {
    const int w = 1 + static_cast<int>(rng() % 64), h = 1 + static_cast<int>(rng() % 64);
    const int mb = 1 + static_cast<int>(rng() % 31);
    const CodeBlockStyle style = CodeBlockStyle::from_byte(static_cast<uint8_t>(rng() % 64));
    std::vector<uint8_t> bytes(rng() % 200);
    for (auto& x : bytes) x = static_cast<uint8_t>(rng());
    std::unique_ptr<uint8_t[]> exact(new uint8_t[bytes.size() + 1]);
    std::copy(bytes.begin(), bytes.end(), exact.get());
    std::vector<uint32_t> lengths(rng() % 5);
    for (auto& l : lengths) l = static_cast<uint32_t>(rng() % 300);
    CodeBlockToDecode in;
    in.data = std::span<const uint8_t>(exact.get(), bytes.size());
    in.segment_lengths = lengths;
    in.num_bitplanes = mb;
    in.zero_bitplanes = static_cast<int>(rng() % mb);
    in.num_passes = static_cast<int>(rng() % (3 * (mb - in.zero_bitplanes) - 1));
    in.orientation = kOrientations[rng() % 4];
    in.style = style;
    std::vector<int32_t> out(static_cast<size_t>(w) * h);
    auto r = decode_code_block(in, PlaneView<int32_t>{out.data(), w, h, w});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    // Whatever garbage the bytes make, the fast decoder makes the same.
    std::vector<int32_t> ref(out.size());
    ASSERT_TRUE(decode_code_block_reference(in, PlaneView<int32_t>{ref.data(), w, h, w}).ok());
    ASSERT_EQ(out, ref) << "trial " << trial << " style " << static_cast<int>(style.to_byte());
  }
}

TEST(Tier1, DamagedValidStreamsDecodeAlikeInFastAndReference) {
  // Bit errors and truncation in real streams reach states random bytes
  // rarely do (long valid prefixes, then garbage).
  std::mt19937 rng(13);
  for (int trial = 0; trial < 200; ++trial) {
    const int w = 1 + static_cast<int>(rng() % 48), h = 1 + static_cast<int>(rng() % 48);
    const int mb = 2 + static_cast<int>(rng() % 14);
    const CodeBlockStyle style = CodeBlockStyle::from_byte(static_cast<uint8_t>(rng() % 64));
    const BandOrientation o = kOrientations[rng() % 4];
    const Block b = random_block(rng, w, h, mb, 0.5);
    auto e = encode_code_block(b.view(), o, mb, style);
    ASSERT_TRUE(e.ok());
    if (e->num_passes == 0) continue;
    std::vector<uint8_t> bytes = e->data;
    for (int flips = static_cast<int>(rng() % 4); flips > 0 && !bytes.empty(); --flips) {
      bytes[rng() % bytes.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
    }
    // erase, not resize: GCC 12 under the sanitizers warns of a huge memset in resize.
    bytes.erase(bytes.end() - static_cast<ptrdiff_t>(rng() % (bytes.size() / 2 + 1)), bytes.end());
    const std::vector<uint32_t> lengths = codeword_segment_lengths(*e, e->num_passes);
    CodeBlockToDecode in{bytes, lengths, e->num_passes, e->zero_bitplanes, mb, o, style};
    std::vector<int32_t> fast(static_cast<size_t>(w) * h), ref(fast.size());
    ASSERT_TRUE(decode_code_block(in, PlaneView<int32_t>{fast.data(), w, h, w}).ok());
    ASSERT_TRUE(decode_code_block_reference(in, PlaneView<int32_t>{ref.data(), w, h, w}).ok());
    ASSERT_EQ(fast, ref) << "trial " << trial;
  }
}

TEST(Tier1, SegmentLengthsFollowTerminations) {
  EncodedCodeBlock e;
  e.passes = {{3, false, 0}, {5, true, 0}, {9, false, 0}, {12, true, 0}};
  EXPECT_EQ(codeword_segment_lengths(e, 4), (std::vector<uint32_t>{5, 7}));
  EXPECT_EQ(codeword_segment_lengths(e, 3), (std::vector<uint32_t>{5, 4}));
  EXPECT_EQ(codeword_segment_lengths(e, 1), (std::vector<uint32_t>{3}));
  EXPECT_TRUE(codeword_segment_lengths(e, 0).empty());
}

TEST(Tier1, ConcurrentCodingFromManyThreads) {
  // The coders keep per-thread scratch state; blocks coded at once on
  // several threads must not disturb each other.
  std::vector<Block> blocks;
  std::mt19937 rng(21);
  for (int i = 0; i < 8; ++i) blocks.push_back(random_block(rng, 64, 64, 12, 0.3));
  std::vector<int> failures(blocks.size(), 0);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < blocks.size(); ++t) {
    threads.emplace_back([&, t] {
      const CodeBlockStyle style = CodeBlockStyle::from_byte(static_cast<uint8_t>(t * 9 % 64));
      for (int round = 0; round < 20; ++round) {
        auto e = encode_code_block(blocks[t].view(), BandOrientation::kHH, 12, style);
        const std::vector<uint32_t> lengths = codeword_segment_lengths(*e, e->num_passes);
        CodeBlockToDecode in{e->data, lengths, e->num_passes, e->zero_bitplanes, 12,
                             BandOrientation::kHH, style};
        std::vector<int32_t> out(64 * 64);
        auto r = decode_code_block(in, PlaneView<int32_t>{out.data(), 64, 64, 64});
        if (!r.ok() || out != blocks[t].v) ++failures[t];
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures, std::vector<int>(blocks.size(), 0));
}

// The magnitudes' OR in vector lanes against the plain loop: rows that end
// mid-vector, INT32_MIN (magnitude 2^31) included, and the bound check.
TEST(Tier1, MagnitudeOrIsThePlainLoops) {
  std::mt19937 rng(21);
  for (int t = 0; t < 200; ++t) {
    const int w = 1 + static_cast<int>(rng() % 64), h = 1 + static_cast<int>(rng() % 64);
    Block b = random_block(rng, w, h, 1 + t % 31, 0.3);
    if (t % 13 == 0) b.v[rng() % b.v.size()] = INT32_MIN;
    const uint32_t plain = detail::magnitude_or_plain(b.view());
    const Result<uint32_t> all = detail::magnitude_or(b.view(), 32);
    ASSERT_TRUE(all.ok());
    EXPECT_EQ(*all, plain) << w << "x" << h << " case " << t;
    const int bits = std::bit_width(plain);
    if (bits > 0) {
      EXPECT_FALSE(detail::magnitude_or(b.view(), bits - 1).ok()) << w << "x" << h << " case " << t;
    }
  }
}

}  // namespace
}  // namespace mallat::entropy
