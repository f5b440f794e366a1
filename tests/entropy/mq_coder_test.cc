#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "entropy/ebcot/mq_decoder.h"
#include "entropy/ebcot/mq_entry_decoder.h"
#include "entropy/ebcot/mq_encoder.h"
#include "entropy/ebcot/mq_fast_decoder.h"
#include "entropy/ebcot/mq_fast_encoder.h"
#include "entropy/ebcot/raw_coder.h"
#include "entropy/ebcot/contexts.h"

namespace mallat::entropy {
namespace {

// The arithmetic coder test sequence of ITU-T T.88 Annex H.2, which the MQ
// coder of 15444-1 Annex C shares: 256 decisions in one context starting at
// I = 0, MPS = 0, and the bytes they code to (checked against several
// independent implementations' copies of the table). T.88 appends the
// marker FF AC after the data; J2K's FLUSH (C.2.9) drops a final 0xFF.
constexpr uint8_t kDecisions[32] = {0x00, 0x02, 0x00, 0x51, 0x00, 0x00, 0x00, 0xC0,
                                    0x03, 0x52, 0x87, 0x2A, 0xAA, 0xAA, 0xAA, 0xAA,
                                    0x82, 0xC0, 0x20, 0x00, 0xFC, 0xD7, 0x9E, 0xF6,
                                    0xBF, 0x7F, 0xED, 0x90, 0x4F, 0x46, 0xA3, 0xBF};
constexpr uint8_t kCoded[30] = {0x84, 0xC7, 0x3B, 0xFC, 0xE1, 0xA1, 0x43, 0x04, 0x02, 0x20,
                                0x00, 0x00, 0x41, 0x0D, 0xBB, 0x86, 0xF4, 0x31, 0x7F, 0xFF,
                                0x88, 0xFF, 0x37, 0x47, 0x1A, 0xDB, 0x6A, 0xDF, 0xFF, 0xAC};

TEST(MqEncoder, StandardTestSequence) {
  std::vector<uint8_t> buffer(64, 0);
  MqEncoder mq;
  mq.init(buffer.data() + 1);
  uint8_t state = mq_state(0, 0);
  for (uint8_t byte : kDecisions) {
    for (int b = 7; b >= 0; --b) mq.encode(state, (byte >> b) & 1);
  }
  const uint32_t length = mq.flush();
  ASSERT_EQ(length, 28u);
  for (uint32_t i = 0; i < length; ++i) EXPECT_EQ(buffer[1 + i], kCoded[i]) << "byte " << i;
}

TEST(MqDecoder, StandardTestSequence) {
  for (size_t size : {size_t{28}, size_t{30}}) {  // with or without the trailing marker
    MqDecoder mq;
    mq.init(kCoded, size);
    uint8_t state = mq_state(0, 0);
    for (int i = 0; i < 32; ++i) {
      uint32_t byte = 0;
      for (int b = 0; b < 8; ++b) byte = byte << 1 | mq.decode(state);
      EXPECT_EQ(byte, kDecisions[i]) << "byte " << i << " of a " << size << "-byte input";
    }
  }
}

struct Decision {
  int context;
  uint32_t bit;
};

std::vector<Decision> random_decisions(std::mt19937& rng, int n) {
  std::vector<Decision> d(n);
  std::uniform_int_distribution<int> ctx(0, kNumContexts - 1);
  std::uniform_real_distribution<double> u(0, 1);
  for (auto& x : d) {
    x.context = ctx(rng);
    // Skewed per context so the coder visits many states, including LPS runs.
    const double p1 = (x.context % 5) * 0.1 + 0.02;
    x.bit = u(rng) < p1;
  }
  return d;
}

std::vector<uint8_t> encode_all(const std::vector<Decision>& d, bool predictable) {
  std::vector<uint8_t> buffer(1 + 4 * d.size() + 16, 0);
  MqEncoder mq;
  mq.init(buffer.data() + 1);
  MqContexts cx = initial_contexts();
  for (const auto& x : d) mq.encode(cx[x.context], x.bit);
  const uint32_t length = predictable ? mq.flush_predictable() : mq.flush();
  return std::vector<uint8_t>(buffer.begin() + 1, buffer.begin() + 1 + length);
}

TEST(MqCoder, RoundTripManyContexts) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const auto d = random_decisions(rng, 1 + trial * 37);
    for (bool predictable : {false, true}) {
      const auto bytes = encode_all(d, predictable);
      ASSERT_FALSE(!bytes.empty() && bytes.back() == 0xFF);
      for (size_t i = 0; i + 1 < bytes.size(); ++i) {
        ASSERT_FALSE(bytes[i] == 0xFF && bytes[i + 1] > 0x8F) << "marker code inside the segment";
      }
      MqDecoder mq;
      mq.init(bytes.data(), bytes.size());
      MqContexts cx = initial_contexts();
      for (size_t i = 0; i < d.size(); ++i) {
        ASSERT_EQ(mq.decode(cx[d[i].context]), d[i].bit) << "decision " << i << " trial " << trial;
      }
    }
  }
}

// Codes random decision streams with the plain C.2.2 coder and with a
// faster one, `code(encoder, contexts, decision)` on its own `contexts`
// (`bytes(contexts)` their state bytes): the same registers and states
// after every decision, and the same bytes.
template <class Contexts, class Code, class Bytes>
void expect_plain_encoding(std::mt19937& rng, Contexts initial, Code&& code, Bytes&& bytes) {
  for (int trial = 0; trial < 200; ++trial) {
    const auto d = random_decisions(rng, 1 + trial * 41);
    std::vector<uint8_t> plain_bytes(1 + 4 * d.size() + 16, 0), other_bytes(plain_bytes.size(), 0);
    MqEncoder plain, other;
    plain.init(plain_bytes.data() + 1);
    other.init(other_bytes.data() + 1);
    MqContexts cx_plain = initial_contexts();
    Contexts cx_other = initial;
    for (const auto& x : d) {
      plain.encode(cx_plain[x.context], x.bit);
      code(other, cx_other, x, trial);
      ASSERT_EQ(bytes(cx_other), cx_plain);
      ASSERT_EQ(other.a, plain.a);
      ASSERT_EQ(other.c, plain.c);
      ASSERT_EQ(other.ct, plain.ct);
    }
    const uint32_t length = plain.flush();
    ASSERT_EQ(other.flush(), length);
    ASSERT_EQ(other_bytes, plain_bytes) << "trial " << trial;
  }
}

TEST(MqEncoder, BranchlessEncodeMatchesPlainEncode) {
  // The branchless coder, alone (even trials) or mixed at random with the
  // plain one as the Tier-1 passes mix them.
  std::mt19937 rng(19);
  expect_plain_encoding(
      rng, initial_contexts(),
      [&](MqEncoder& mq, MqContexts& cx, const Decision& x, int trial) {
        if (trial % 2 == 0 || rng() % 2) {
          mq.encode_branchless(cx[x.context], x.bit);
        } else {
          mq.encode(cx[x.context], x.bit);
        }
      },
      [](const MqContexts& cx) { return cx; });
}

TEST(MqEncoder, FastEncodeMatchesPlainEncode) {
  // The CPU Tier-1 encoder's decisions on contexts of whole state entries
  // (mq_fast_encoder.h), branchless or not, mixed at random.
  std::mt19937 rng(23);
  expect_plain_encoding(
      rng, detail::fast_encode_contexts(initial_contexts()),
      [&](MqEncoder& mq, detail::FastMqEncodeContexts& cx, const Decision& x, int) {
        if (rng() % 2) {
          detail::encode_branchless(mq, cx[x.context], x.bit);
        } else {
          detail::encode(mq, cx[x.context], x.bit);
        }
      },
      [](const detail::FastMqEncodeContexts& cx) { return detail::state_bytes(cx); });
}

TEST(MqDecoder, TruncatedAndGarbageInputStaysInBounds) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 100; ++trial) {
    std::vector<uint8_t> bytes(trial % 9);
    for (auto& b : bytes) b = static_cast<uint8_t>(rng() | (trial & 1 ? 0xF0 : 0));
    // A heap copy of exactly that size so a sanitizer sees any over-read.
    std::unique_ptr<uint8_t[]> exact(new uint8_t[bytes.size() + (bytes.empty() ? 1 : 0)]);
    std::copy(bytes.begin(), bytes.end(), exact.get());
    MqDecoder mq;
    mq.init(exact.get(), bytes.size());
    MqContexts cx = initial_contexts();
    for (int i = 0; i < 5000; ++i) mq.decode(cx[i % kNumContexts]);
    EXPECT_LE(mq.bp, mq.end + 0);
  }
}

// The decisions `d` MQ-coded, and by `trial`: as they are, every byte
// replaced at random (many 0xFF and markers where trial & 4), or one bit
// flipped and the end cut off.
std::vector<uint8_t> test_stream(std::mt19937& rng, const std::vector<Decision>& d, int trial) {
  std::vector<uint8_t> bytes = encode_all(d, trial % 2 == 0);
  if (trial % 3 == 1) {
    for (auto& b : bytes) b = static_cast<uint8_t>(rng() | (trial & 4 ? 0xF0 : 0));
  } else if (trial % 3 == 2 && !bytes.empty()) {
    bytes[rng() % bytes.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
    // erase, not resize: GCC 12 under the sanitizers warns of a huge memset in resize.
    bytes.erase(bytes.end() - static_cast<ptrdiff_t>(rng() % (bytes.size() / 2 + 1)), bytes.end());
  }
  return bytes;
}

TEST(MqDecoder, FastDecodeMatchesPlainDecode) {
  // Valid streams, the same streams with bit errors and cut short, and
  // random bytes: the decisions on a padded copy and the plain C.3.2 ones
  // agree on every symbol, every context state and every register.
  std::mt19937 rng(17);
  for (int trial = 0; trial < 300; ++trial) {
    const auto d = random_decisions(rng, 1 + trial * 23);
    const std::vector<uint8_t> bytes = test_stream(rng, d, trial);
    std::unique_ptr<uint8_t[]> exact(new uint8_t[bytes.size() + 1]);
    std::copy(bytes.begin(), bytes.end(), exact.get());
    PaddedSegment padded;
    const uint8_t* copy = padded.assign(bytes);
    // Both padded forms, mixed at random as the Tier-1 passes mix them.
    MqDecoder plain, fast;
    plain.init(exact.get(), bytes.size());
    fast.init(copy, bytes.size());
    MqContexts cx_plain = initial_contexts(), cx_fast = initial_contexts();
    for (size_t i = 0; i < d.size() + 200; ++i) {
      const int ctx = i < d.size() ? d[i].context : static_cast<int>(i % kNumContexts);
      const uint32_t expected = plain.decode(cx_plain[ctx]);
      const uint32_t got = rng() % 2 ? fast.decode_padded_branchless(cx_fast[ctx])
                                     : fast.decode_padded(cx_fast[ctx]);
      ASSERT_EQ(got, expected) << i;
      ASSERT_EQ(cx_fast, cx_plain) << i;
      ASSERT_EQ(fast.a, plain.a) << i;
      ASSERT_EQ(fast.c, plain.c) << i;
      ASSERT_EQ(fast.ct, plain.ct) << i;
      ASSERT_EQ(fast.bp - copy, plain.bp - exact.get()) << i;
    }
  }
}

TEST(MqFastDecoder, MatchesPlainDecode) {
  // The CPU Tier-1 decoder's MQ decoder (whole state entries per context,
  // A and Qe 16 bits up) against the plain C.3.2 decoder on valid, damaged,
  // cut and random streams: the same symbols, context states and registers.
  std::mt19937 rng(23);
  for (int trial = 0; trial < 300; ++trial) {
    const auto d = random_decisions(rng, 1 + trial * 23);
    const std::vector<uint8_t> bytes = test_stream(rng, d, trial);
    std::unique_ptr<uint8_t[]> exact(new uint8_t[bytes.size() + 1]);
    std::copy(bytes.begin(), bytes.end(), exact.get());
    detail::WidePaddedSegment padded;
    const uint8_t* copy = padded.assign(bytes);
    MqDecoder plain;
    plain.init(exact.get(), bytes.size());
    detail::MqFastDecoder fast;
    fast.init(copy, bytes.size());
    MqContexts cx_plain = initial_contexts();
    detail::FastMqContexts cx_fast = detail::fast_contexts(cx_plain);
    for (size_t i = 0; i < d.size() + 200; ++i) {
      const int ctx = i < d.size() ? d[i].context : static_cast<int>(i % kNumContexts);
      const uint32_t expected = plain.decode(cx_plain[ctx]);
      const uint32_t got = rng() % 2 ? fast.decode_branchless(cx_fast[ctx]) : fast.decode(cx_fast[ctx]);
      ASSERT_EQ(got, expected) << i;
      ASSERT_EQ(cx_fast, detail::fast_contexts(cx_plain)) << i;
      ASSERT_EQ(fast.a, plain.a << 16) << i;
      // C's high half and the bits of the byte C.3 holds agree; the fast
      // decoder's C holds up to three bytes more below them.
      ASSERT_GE(fast.ct, plain.ct) << i;
      ASSERT_EQ(fast.c >> (48 - plain.ct), plain.c >> (16 - plain.ct)) << i;
      ASSERT_EQ(fast.bp - copy - (fast.ct - plain.ct) / 8, plain.bp - exact.get()) << i;
    }
  }
}

// The shared Tier-1 decoder's MQ decoder (whole state entries, A 16 bits
// up, up to four bytes read at once inside the segment) against the plain
// C.3.2 decoder, both on the exact bytes (a sanitizer sees any read past
// them): the same symbols, context states and registers, branchless or
// not, mixed at random.
void expect_entry_decoding_matches(std::mt19937& rng, const std::vector<uint8_t>& bytes,
                                   const std::vector<Decision>& d) {
  std::unique_ptr<uint8_t[]> exact(new uint8_t[bytes.size() + 1]);
  std::copy(bytes.begin(), bytes.end(), exact.get());
  const uint8_t* data = bytes.empty() ? nullptr : exact.get();
  MqDecoder plain;
  plain.init(data, bytes.size());
  detail::MqEntryDecoder entry;
  entry.init(data, bytes.size());
  MqContexts cx_plain = initial_contexts();
  detail::MqEntryContexts cx_entry;
  cx_entry.reset();
  for (size_t i = 0; i < d.size() + 200; ++i) {
    const int ctx = i < d.size() ? d[i].context : static_cast<int>(i % kNumContexts);
    const uint32_t expected = plain.decode(cx_plain[ctx]);
    const uint32_t got = rng() % 2 ? entry.decode_branchless(cx_entry[ctx]) : entry.decode(cx_entry[ctx]);
    ASSERT_EQ(got, expected) << i;
    for (int k = 0; k < kNumContexts; ++k) ASSERT_EQ(cx_entry[k], kFastMqStates[cx_plain[k]]) << i;
    ASSERT_EQ(entry.a, plain.a << 16) << i;
    // C's high half and the bits of the byte C.3 holds agree; the entry
    // decoder's C holds up to three bytes more below them.
    ASSERT_GE(entry.r.ct, plain.ct) << i;
    ASSERT_EQ(entry.c >> (48 - plain.ct), plain.c >> (16 - plain.ct)) << i;
    ASSERT_EQ(entry.r.bp - (entry.r.ct - plain.ct) / 8, plain.bp) << i;
    ASSERT_LE(entry.r.bp, entry.r.end) << i;
  }
}

TEST(MqEntryDecoder, MatchesPlainDecode) {
  std::mt19937 rng(29);
  for (int trial = 0; trial < 300; ++trial) {
    const auto d = random_decisions(rng, 1 + trial * 23);
    expect_entry_decoding_matches(rng, test_stream(rng, d, trial), d);
  }
}

TEST(MqEntryDecoder, MatchesPlainDecodeAtTheSegmentsEnd) {
  // Every length of a segment's start, with 0xFF (then a byte below or
  // above 0x8F) at each of its last positions: the four-byte reads meet
  // the segment's end and the 0xFF bytes BYTEIN must see one at a time.
  std::mt19937 rng(31);
  const auto d = random_decisions(rng, 400);
  const std::vector<uint8_t> whole = encode_all(d, true);
  for (size_t length = 0; length <= std::min<size_t>(whole.size(), 24); ++length) {
    for (size_t ff = 0; ff <= std::min<size_t>(length, 6); ++ff) {
      for (const uint8_t after : {uint8_t{0x12}, uint8_t{0x90}}) {
        std::vector<uint8_t> bytes(whole.begin(), whole.begin() + static_cast<ptrdiff_t>(length));
        if (ff > 0) {
          bytes[length - ff] = 0xFF;
          if (ff > 1) bytes[length - ff + 1] = after;
        }
        expect_entry_decoding_matches(rng, bytes, d);
      }
    }
  }
}

// Truncation lengths (shortest_truncation): at random points of random
// symbol streams, the prefix decodes every symbol coded so far, it is never
// longer than the bound that covers all of C (B and 27 - CT bits after it,
// 7 to a byte), and on average it is shorter than OpenJPEG's count of 3
// bytes after the settled ones. Skewed and balanced symbols, segments that
// start after a 0xFF byte, and carries into bytes after 0xFF all occur.
TEST(MqEncoder, ShortestTruncationDecodesEverySymbolSoFar) {
  std::mt19937 rng(11);
  int64_t points = 0, total = 0, bound_total = 0, openjpeg_total = 0, openjpeg_short = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    std::vector<uint8_t> buffer(8192, 0);
    const uint8_t before = trial % 5 == 0 ? 0xFF : 0x00;   // the byte ahead of the segment
    buffer[0] = before;
    MqEncoder enc;
    enc.init(buffer.data() + 1);
    uint8_t states[kNumContexts] = {};
    const int n = 1 + static_cast<int>(rng() % 600);
    const int skew = static_cast<int>(rng() % 5);
    std::vector<int> cx(n), bits(n);
    struct Point {
      int symbols;
      MqEncoder::TruncationPoint at;
    };
    std::vector<Point> taken;
    for (int k = 0; k < n; ++k) {
      cx[k] = static_cast<int>(rng() % kNumContexts);
      bits[k] = static_cast<int>(rng() % 8) < skew;
      enc.encode(states[cx[k]], static_cast<uint32_t>(bits[k]));
      if (rng() % 7 == 0) taken.push_back({k + 1, enc.truncation_point(buffer.data())});
    }
    const uint32_t length = enc.flush();
    for (const Point& p : taken) {
      const size_t end = shortest_truncation(p.at, buffer.data(), 1, 1 + length);
      ASSERT_GE(end, 1u);
      ASSERT_LE(end, 1u + length);
      const size_t bound = p.at.b_offset + 1 + static_cast<size_t>((27 - p.at.ct + 6) / 7);
      ASSERT_LE(end, std::max<size_t>(bound, 1));
      PaddedSegment padded;
      const uint8_t* data = padded.assign(std::span<const uint8_t>(buffer.data() + 1, end - 1));
      MqDecoder dec;
      dec.init(data, end - 1);
      uint8_t dstates[kNumContexts] = {};
      for (int k = 0; k < p.symbols; ++k)
        ASSERT_EQ(dec.decode(dstates[cx[k]]), static_cast<uint32_t>(bits[k]))
            << "trial " << trial << " symbol " << k << " of " << p.symbols << ", prefix " << end - 1;
      ++points;
      total += static_cast<int64_t>(end - 1);
      bound_total += static_cast<int64_t>(std::min<size_t>(bound - 1, length));
      const int64_t openjpeg = std::min<int64_t>(static_cast<int64_t>(p.at.b_offset) + 2, length);
      openjpeg_total += openjpeg;
      if (openjpeg < static_cast<int64_t>(end - 1)) {
        // Does OpenJPEG's shorter count decode the symbols?
        const uint8_t* short_data =
            padded.assign(std::span<const uint8_t>(buffer.data() + 1, static_cast<size_t>(openjpeg)));
        MqDecoder d2;
        d2.init(short_data, static_cast<size_t>(openjpeg));
        uint8_t s2[kNumContexts] = {};
        for (int k = 0; k < p.symbols; ++k) {
          if (d2.decode(s2[cx[k]]) != static_cast<uint32_t>(bits[k])) {
            ++openjpeg_short;
            break;
          }
        }
      }
    }
  }
  ASSERT_GT(points, 10000);
  EXPECT_LT(total, openjpeg_total);
  std::printf("%lld points: %.2f bytes shorter than the bound over C, %.2f shorter than OpenJPEG's count, "
              "which decoded wrong at %.1f%% of them\n",
              static_cast<long long>(points), static_cast<double>(bound_total - total) / points,
              static_cast<double>(openjpeg_total - total) / points, 100.0 * openjpeg_short / points);
}

TEST(RawCoder, RoundTripWithStuffing) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 100; ++trial) {
    std::vector<uint32_t> bits(trial * 13 + 1);
    // Long runs of ones make 0xFF bytes and exercise the stuffed bit.
    for (auto& b : bits) b = (rng() % 8) != 0;
    std::vector<uint8_t> buffer(bits.size() / 7 + 8, 0);
    RawEncoder enc;
    enc.init(buffer.data());
    for (uint32_t b : bits) enc.encode(b);
    const uint32_t length = enc.flush();
    ASSERT_TRUE(length == 0 || buffer[length - 1] != 0xFF);
    for (uint32_t i = 0; i + 1 < length; ++i) {
      ASSERT_FALSE(buffer[i] == 0xFF && buffer[i + 1] > 0x7F);
    }
    RawDecoder dec;
    dec.init(buffer.data(), length);
    for (size_t i = 0; i < bits.size(); ++i) ASSERT_EQ(dec.decode(), bits[i]) << i;
  }
}

}  // namespace
}  // namespace mallat::entropy
