// Known answers from a real HT encoder: OpenJPH's codestreams of small
// images that are one code-block each (openjph_streams.inc). The test reads
// the one packet's header by hand (B.10: inclusion, zero bit-planes, passes,
// length), decodes the cleanup segment with our decoder (lossless: the
// image's samples less the DC level shift), and encodes the decoded values
// again: our encoder makes the same choices as OpenJPH's, so the bytes must
// be the same.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "entropy/ht/code_block.h"

namespace mallat::entropy {
namespace {

struct OpenJphStream {
  int width, height, seed;
  std::string bytes;
};
#include "tests/entropy/openjph_streams.inc"

// The generator's image (make_openjph_streams.py): a ramp plus LCG noise.
int image_sample(uint32_t x, uint32_t y, uint32_t seed) {
  uint32_t state = seed * 7919u + y * 104729u + x * 1299709u;
  state = state * 1103515245u + 12345u;
  const int noise = static_cast<int>((state >> 16) % 41) - 20;
  return std::clamp(128 + static_cast<int>((x * 37 + y * 11) % 64) - 32 + noise, 0, 255);
}

// Packet header bits (B.10.1): most significant first; after a 0xFF byte
// the next byte's MSB is a stuffed 0.
class HeaderBits {
 public:
  explicit HeaderBits(std::span<const uint8_t> data) : data_(data) {}
  int bit() {
    if (left_ == 0) {
      const bool after_ff = pos_ > 0 && data_[pos_ - 1] == 0xFF;
      byte_ = data_[pos_++];
      left_ = after_ff ? 7 : 8;
    }
    return (byte_ >> --left_) & 1;
  }
  uint32_t bits(int n) {
    uint32_t v = 0;
    for (int i = 0; i < n; ++i) v = v << 1 | static_cast<uint32_t>(bit());
    return v;
  }
  // Bytes used, the last partly used one included (B.10.1: the header
  // ends on a byte boundary; a final 0xFF would be followed by a 0 byte).
  size_t bytes_used() const { return pos_ + (pos_ > 0 && data_[pos_ - 1] == 0xFF ? 1 : 0); }

 private:
  std::span<const uint8_t> data_;
  size_t pos_ = 0;
  int left_ = 0;
  uint32_t byte_ = 0;
};

struct OneBlock {
  int mb = 0;
  bool irreversible = false;
  int zero_bitplanes = 0;
  int passes = 0;
  std::span<const uint8_t> body;
};

uint16_t be16(std::span<const uint8_t> d, size_t at) { return static_cast<uint16_t>(d[at] << 8 | d[at + 1]); }

// The main header's COD and QCD, then the first tile-part's one packet.
OneBlock parse(std::span<const uint8_t> d) {
  OneBlock b;
  size_t at = 2;  // after SOC
  int guard_bits = 0, exponent = 0;
  while (at + 4 <= d.size() && be16(d, at) != 0xFF90) {
    const uint16_t marker = be16(d, at);
    const uint16_t length = be16(d, at + 2);
    if (marker == 0xFF52) {
      EXPECT_EQ(d[at + 12], 0x40) << "code-block style: HT";
      EXPECT_EQ(d[at + 9], 0) << "decomposition levels";
    }
    if (marker == 0xFF5C) {
      // A.6.4: Sqcd (guard bits, style) then per subband the exponent.
      const uint8_t sqcd = d[at + 4];
      guard_bits = sqcd >> 5;
      b.irreversible = (sqcd & 0x1F) != 0;
      exponent = d[at + 5] >> 3;
    }
    at += 2 + length;
  }
  b.mb = guard_bits + exponent - 1;  // E-2
  // SOT, then SOD.
  at += 2 + be16(d, at + 2);
  EXPECT_EQ(be16(d, at), 0xFF93);
  at += 2;
  HeaderBits h(d.subspan(at));
  EXPECT_EQ(h.bit(), 1) << "non-empty packet";
  EXPECT_EQ(h.bit(), 1) << "the block is included in layer 0";
  while (h.bit() == 0) ++b.zero_bitplanes;  // a one-leaf tag tree: unary
  // Table B.4: the number of passes (only the short codes here).
  b.passes = h.bit() == 0 ? 1 : (h.bit() == 0 ? 2 : 3 + static_cast<int>(h.bits(2)));
  int lblock = 3;
  while (h.bit() == 1) ++lblock;
  const int extra = b.passes >= 2 ? 1 : 0;  // floor(log2(passes)) for 1..3
  const uint32_t length = h.bits(lblock + extra);
  const size_t body = at + h.bytes_used();
  EXPECT_LE(body + length, d.size());
  b.body = d.subspan(body, length);
  return b;
}

void check(const OpenJphStream& s) {
  SCOPED_TRACE(std::to_string(s.width) + "x" + std::to_string(s.height) + " seed " + std::to_string(s.seed));
  const std::span<const uint8_t> stream(reinterpret_cast<const uint8_t*>(s.bytes.data()), s.bytes.size());
  const OneBlock b = parse(stream);
  ASSERT_EQ(b.passes, 1) << "OpenJPH writes one cleanup pass";
  ASSERT_GT(b.mb, 0);
  const int p = b.mb - 1 - b.zero_bitplanes;
  ASSERT_GE(p, 0);

  std::vector<int32_t> out(static_cast<size_t>(s.width) * s.height, 777);
  CodeBlockToDecode in;
  in.data = b.body;
  const uint32_t lengths[] = {static_cast<uint32_t>(b.body.size())};
  in.segment_lengths = lengths;
  in.num_passes = 1;
  in.zero_bitplanes = b.zero_bitplanes;
  in.num_bitplanes = b.mb;
  in.style.ht = true;
  auto info = decode_ht_code_block(in, {out.data(), s.width, s.height, s.width});
  ASSERT_TRUE(info.ok()) << info.status().message();
  EXPECT_EQ(info->lowest_plane, p);

  if (!b.irreversible) {
    // No transform at all: the samples less 2^(8-1).
    for (int y = 0; y < s.height; ++y) {
      for (int x = 0; x < s.width; ++x) {
        ASSERT_EQ(out[static_cast<size_t>(y * s.width + x)], image_sample(x, y, s.seed) - 128)
            << "at " << x << "," << y;
      }
    }
  } else {
    int64_t nonzero = 0;
    for (int32_t v : out) nonzero += v != 0;
    EXPECT_GT(nonzero, int64_t{s.width} * s.height / 2);
  }

  HtEncodeSettings settings;
  settings.cleanup_plane = p;
  auto coded = encode_ht_code_block({out.data(), s.width, s.height, s.width}, b.mb, 0, settings);
  ASSERT_TRUE(coded.ok()) << coded.status().message();
  EXPECT_EQ(coded->zero_bitplanes, b.zero_bitplanes);
  ASSERT_EQ(coded->num_passes, 1);
  EXPECT_EQ(coded->data, std::vector<uint8_t>(b.body.begin(), b.body.end()));
}

TEST(HtOpenJph, DecodesLosslessBlockAndEncodesTheSameBytes) { check(kLossless64x64); }
TEST(HtOpenJph, DecodesOddSizedBlockAndEncodesTheSameBytes) { check(kLossless37x23); }
TEST(HtOpenJph, DecodesLossyBlockAndEncodesTheSameBytes) { check(kLossy64x64); }

}  // namespace
}  // namespace mallat::entropy
