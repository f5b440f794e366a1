// One code-block from real OpenJPEG codestreams: an 8x8 image with no
// wavelet levels (-n 1) is one LL code-block whose coefficients are the
// DC-shifted samples (reversible path, no quantisation). We read the single
// packet's header (B.10) here, decode the block with our Tier-1 and expect
// the samples back, then encode the samples and expect OpenJPEG's bytes.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "entropy/ebcot/ebcot.h"
#include "entropy/ebcot/schedule.h"

namespace mallat::entropy {
namespace {

#include "tests/entropy/openjpeg_streams.inc"

// B.10.1: packet header bits, with a 0 stuffed after each 0xFF byte.
class HeaderBits {
 public:
  HeaderBits(const uint8_t* p, const uint8_t* end) : p_(p), end_(end) {}
  uint32_t bit() {
    if (ct_ == 0) {
      ct_ = previous_ == 0xFF ? 7 : 8;
      previous_ = p_ < end_ ? *p_++ : 0;
    }
    --ct_;
    return (previous_ >> ct_) & 1;
  }
  uint32_t bits(int n) {
    uint32_t v = 0;
    while (n-- > 0) v = v << 1 | bit();
    return v;
  }
  // The body starts after the header's last byte, and after one more if that
  // byte was 0xFF (its stuffed 0 bit belongs to the header).
  const uint8_t* body() const { return p_ + (previous_ == 0xFF ? 1 : 0); }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
  uint8_t previous_ = 0;
  int ct_ = 0;
};

// B.10.6, Table B.4: number of coding passes.
int read_pass_count(HeaderBits& in) {
  if (!in.bit()) return 1;
  if (!in.bit()) return 2;
  const uint32_t two = in.bits(2);
  if (two != 3) return 3 + static_cast<int>(two);
  const uint32_t five = in.bits(5);
  if (five != 31) return 6 + static_cast<int>(five);
  return 37 + static_cast<int>(in.bits(7));
}

int floor_log2(int v) {
  int r = 0;
  while (v >>= 1) ++r;
  return r;
}

struct ParsedBlock {
  int zero_bitplanes = 0;
  int passes = 0;
  std::vector<uint32_t> segment_lengths;
  std::vector<uint8_t> data;
};

// The first byte after the first SOD marker.
const uint8_t* first_packet(const std::vector<uint8_t>& cs) {
  for (size_t i = 0; i + 1 < cs.size(); ++i) {
    if (cs[i] == 0xFF && cs[i + 1] == 0x93) return cs.data() + i + 2;
  }
  ADD_FAILURE() << "no SOD";
  return cs.data() + cs.size();
}

// One packet of the first layer whose subbands hold one code-block each,
// all included (B.10): the header for every block, then their bodies.
// Returns the blocks and moves `p` past the packet.
std::vector<ParsedBlock> parse_packet(const uint8_t*& p, const uint8_t* end, int blocks,
                                      const CodeBlockStyle& style) {
  std::vector<ParsedBlock> out(blocks);
  HeaderBits in(p, end);
  EXPECT_EQ(in.bit(), 1u) << "empty packet";
  for (ParsedBlock& block : out) {
    EXPECT_EQ(in.bit(), 1u) << "inclusion tag tree: included in layer 0";
    while (in.bit() == 0) ++block.zero_bitplanes;  // one-node tag tree (B.10.2)
    block.passes = read_pass_count(in);
    int lblock = 3;
    while (in.bit()) ++lblock;  // B.10.7.1
    // B.10.7.2: one length per codeword segment in this packet.
    int pass = 0;
    while (pass < block.passes) {
      int in_segment = 0;
      do {
        ++in_segment;
      } while (pass + in_segment < block.passes && !pass_ends_segment(style, pass + in_segment - 1));
      block.segment_lengths.push_back(in.bits(lblock + floor_log2(in_segment)));
      pass += in_segment;
    }
  }
  p = in.body();
  for (ParsedBlock& block : out) {
    uint32_t total = 0;
    for (uint32_t l : block.segment_lengths) total += l;
    EXPECT_LE(p + total, end);
    block.data.assign(p, p + total);
    p += total;
  }
  return out;
}

ParsedBlock parse_single_block(const std::vector<uint8_t>& cs, const CodeBlockStyle& style) {
  const uint8_t* p = first_packet(cs);
  return parse_packet(p, cs.data() + cs.size() - 2, 1, style)[0];
}

// Decodes a parsed block with our Tier-1 and expects `expected`; encodes
// `expected` and expects OpenJPEG's bytes and segment lengths.
void check_against(const ParsedBlock& block, const std::vector<int32_t>& expected, int w, int h,
                   int mb, BandOrientation orientation, const CodeBlockStyle& style) {
  EXPECT_EQ(block.passes, 3 * (mb - block.zero_bitplanes) - 2);
  CodeBlockToDecode in;
  in.data = block.data;
  in.segment_lengths = block.segment_lengths;
  in.num_passes = block.passes;
  in.zero_bitplanes = block.zero_bitplanes;
  in.num_bitplanes = mb;
  in.orientation = orientation;
  in.style = style;
  std::vector<int32_t> out(expected.size(), -999);
  auto r = decode_code_block(in, PlaneView<int32_t>{out.data(), w, h, w});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(out, expected);

  auto e = encode_code_block(PlaneView<const int32_t>{expected.data(), w, h, w}, orientation, mb, style);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->zero_bitplanes, block.zero_bitplanes);
  EXPECT_EQ(e->data, block.data);
  EXPECT_EQ(codeword_segment_lengths(*e, e->num_passes), block.segment_lengths);
}

// F.3.8 / F.4.8: one level of the reversible 5/3 analysis of a signal of
// even length starting at index 0, with the symmetric extension of F.3.7;
// low-pass outputs at even positions, high-pass at odd ones.
void forward_53(int32_t* x, int n, int step) {
  auto at = [&](int i) -> int32_t& { return x[i * step]; };
  auto mirrored = [&](int i) { return i < 0 ? -i : i >= n ? 2 * (n - 1) - i : i; };
  for (int i = 1; i < n; i += 2) at(i) -= (at(mirrored(i - 1)) + at(mirrored(i + 1))) >> 1;
  for (int i = 0; i < n; i += 2) at(i) += (at(mirrored(i - 1)) + at(mirrored(i + 1)) + 2) >> 2;
}

TEST(OpenJpegInterop, DecodesOpenJpegCodeBlocksAndEncodesTheSameBytes) {
  constexpr int kMb = 9;  // QCD: guard bits 2, epsilon 8: Mb = 2 + 8 - 1 (E-2)
  std::vector<int32_t> expected(64);
  for (int i = 0; i < 64; ++i) expected[i] = kImage8x8[i] - 128;
  for (const OpenJpegStream& s : kOpenJpegStreams) {
    SCOPED_TRACE("opj_compress -M " + std::to_string(s.style));
    const CodeBlockStyle style = CodeBlockStyle::from_byte(s.style);
    const ParsedBlock block = parse_single_block(s.bytes, style);
    check_against(block, expected, 8, 8, kMb, BandOrientation::kLL, style);
  }
}

TEST(OpenJpegInterop, SubbandOrientationsMatchOpenJpeg) {
  // One 5/3 level (F.4.2: columns, then rows) of the DC-shifted samples; the
  // four quadrants of the result are LL, HL (right), LH (bottom), HH. Each
  // is one code-block in OpenJPEG's stream, coded with its band's Table D.1
  // column: a swapped or wrong table decodes wrongly and codes other bytes.
  std::vector<int32_t> t(256);
  for (int i = 0; i < 256; ++i) t[i] = kImage16x16[i] - 128;
  for (int x = 0; x < 16; ++x) forward_53(t.data() + x, 16, 16);
  for (int y = 0; y < 16; ++y) forward_53(t.data() + 16 * y, 16, 1);
  auto band = [&](int ox, int oy) {  // ox, oy: 0 low-pass, 1 high-pass
    std::vector<int32_t> b(64);
    for (int y = 0; y < 8; ++y) {
      for (int x = 0; x < 8; ++x) b[y * 8 + x] = t[(2 * y + oy) * 16 + 2 * x + ox];
    }
    return b;
  };
  // QCD: guard bits 2, epsilon 8 (LL), 9 (HL, LH), 10 (HH): Mb = 2 + eps - 1.
  const CodeBlockStyle style{};
  const uint8_t* p = first_packet(kOpenJpegOneLevel);
  const uint8_t* end = kOpenJpegOneLevel.data() + kOpenJpegOneLevel.size() - 2;
  const auto r0 = parse_packet(p, end, 1, style);  // resolution 0: LL
  const auto r1 = parse_packet(p, end, 3, style);  // resolution 1: HL, LH, HH
  EXPECT_EQ(p, end) << "both packets read exactly";
  {
    SCOPED_TRACE("LL");
    check_against(r0[0], band(0, 0), 8, 8, 9, BandOrientation::kLL, style);
  }
  {
    SCOPED_TRACE("HL");
    check_against(r1[0], band(1, 0), 8, 8, 10, BandOrientation::kHL, style);
  }
  {
    SCOPED_TRACE("LH");
    check_against(r1[1], band(0, 1), 8, 8, 10, BandOrientation::kLH, style);
  }
  {
    SCOPED_TRACE("HH");
    check_against(r1[2], band(1, 1), 8, 8, 11, BandOrientation::kHH, style);
  }
}

}  // namespace
}  // namespace mallat::entropy
