// One code-block from real OpenJPEG codestreams: an 8x8 image with no
// wavelet levels (-n 1) is one LL code-block whose coefficients are the
// DC-shifted samples (reversible path, no quantisation). We read the single
// packet's header (B.10) here, decode the block with our Tier-1 and expect
// the samples back, then encode the samples and expect OpenJPEG's bytes.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "entropy/t1.h"
#include "entropy/t1_schedule.h"

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

ParsedBlock parse_single_block(const std::vector<uint8_t>& cs, const CodeBlockStyle& style) {
  ParsedBlock out;
  size_t sod = 0;
  for (size_t i = 0; i + 1 < cs.size(); ++i) {
    if (cs[i] == 0xFF && cs[i + 1] == 0x93) {
      sod = i + 2;
      break;
    }
  }
  EXPECT_NE(sod, 0u);
  const uint8_t* end = cs.data() + cs.size() - 2;  // before EOC
  HeaderBits in(cs.data() + sod, end);
  EXPECT_EQ(in.bit(), 1u) << "empty packet";
  EXPECT_EQ(in.bit(), 1u) << "inclusion tag tree: included in layer 0";
  while (in.bit() == 0) ++out.zero_bitplanes;  // one-node tag tree (B.10.2)
  out.passes = read_pass_count(in);
  int lblock = 3;
  while (in.bit()) ++lblock;  // B.10.7.1
  // B.10.7.2: one length per codeword segment in this packet.
  int pass = 0;
  while (pass < out.passes) {
    int in_segment = 0;
    do {
      ++in_segment;
    } while (pass + in_segment < out.passes && !pass_ends_segment(style, pass + in_segment - 1));
    out.segment_lengths.push_back(in.bits(lblock + floor_log2(in_segment)));
    pass += in_segment;
  }
  const uint8_t* body = in.body();
  uint32_t total = 0;
  for (uint32_t l : out.segment_lengths) total += l;
  EXPECT_LE(body + total, end);
  out.data.assign(body, body + total);
  return out;
}

TEST(OpenJpegInterop, DecodesOpenJpegCodeBlocksAndEncodesTheSameBytes) {
  constexpr int kMb = 9;  // QCD: guard bits 2, epsilon 8: Mb = 2 + 8 - 1 (E-2)
  std::vector<int32_t> expected(64);
  for (int i = 0; i < 64; ++i) expected[i] = kImage8x8[i] - 128;
  for (const OpenJpegStream& s : kOpenJpegStreams) {
    SCOPED_TRACE("opj_compress -M " + std::to_string(s.style));
    const CodeBlockStyle style = CodeBlockStyle::from_byte(s.style);
    const ParsedBlock block = parse_single_block(s.bytes, style);
    EXPECT_EQ(block.passes, 3 * (kMb - block.zero_bitplanes) - 2);

    CodeBlockToDecode in;
    in.data = block.data;
    in.segment_lengths = block.segment_lengths;
    in.num_passes = block.passes;
    in.zero_bitplanes = block.zero_bitplanes;
    in.num_bitplanes = kMb;
    in.orientation = BandOrientation::kLL;
    in.style = style;
    std::vector<int32_t> out(64, -999);
    auto r = decode_code_block(in, PlaneView<int32_t>{out.data(), 8, 8, 8});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    EXPECT_EQ(out, expected);

    auto e = encode_code_block(PlaneView<const int32_t>{expected.data(), 8, 8, 8},
                               BandOrientation::kLL, kMb, style);
    ASSERT_TRUE(e.ok());
    EXPECT_EQ(e->zero_bitplanes, block.zero_bitplanes);
    EXPECT_EQ(e->data, block.data);
    const std::vector<uint32_t> ours = codeword_segment_lengths(*e, e->num_passes);
    EXPECT_EQ(ours, block.segment_lengths);
  }
}

}  // namespace
}  // namespace mallat::entropy
