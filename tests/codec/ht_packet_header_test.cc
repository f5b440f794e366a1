// 15444-15 B.3: the codeword segments of HT code-blocks in packet headers:
// the cleanup pass alone, SigProp with MagRef, placeholder passes in the
// first cleanup's segment, and HTMIXED telling HT blocks from Part 1 ones
// by their first length. Headers are written bit by bit here, as an HT
// encoder with placeholders (Kakadu's) or a mixed one would write them.
#include <gtest/gtest.h>

#include <vector>

#include "codec/tier2/packet_header.h"

namespace mallat::codec {
namespace {

CodeBlockStyle ht_style(bool mixed = false) {
  CodeBlockStyle s;
  s.ht = true;
  s.ht_mixed = mixed;
  return s;
}

TEST(HtCodewordSegments, CleanupAloneThenRefinementTogether) {
  const CodeBlockStyle ht = ht_style();
  EXPECT_EQ(codeword_segment_pieces(ht, 0, 1), std::vector<int>({1}));
  EXPECT_EQ(codeword_segment_pieces(ht, 0, 3), std::vector<int>({1, 2}));
  EXPECT_EQ(codeword_segment_pieces(ht, 1, 1), std::vector<int>({1}));  // SigProp: the segment goes on
  EXPECT_EQ(codeword_segment_pieces(ht, 1, 2), std::vector<int>({2}));
  EXPECT_EQ(codeword_segment_pieces(ht, 0, 6), std::vector<int>({1, 2, 1, 2}));
  // Three placeholder passes before the first cleanup (pass 3).
  EXPECT_EQ(codeword_segment_pieces(ht, 0, 6, 3), std::vector<int>({4, 2}));
  EXPECT_FALSE(pass_ends_codeword_segment(ht, 1, 0));
  EXPECT_TRUE(pass_ends_codeword_segment(ht, 2, 0));
  EXPECT_FALSE(pass_ends_codeword_segment(ht, 2, 3));
}

// The written form of one block's contribution to a 1x1-block precinct.
struct Bits {
  std::vector<uint8_t> bytes;
  PacketBitWriter w{bytes};
};

// Layer 0's header: non-empty, included (tag tree value 0: "1"), zero
// bit-planes P ("0" * P then "1"), then the pass count.
void first_inclusion(PacketBitWriter& w, int zero_bitplanes) {
  w.put_bit(1);
  w.put_bit(1);
  for (int i = 0; i < zero_bitplanes; ++i) w.put_bit(0);
  w.put_bit(1);
}

PrecinctPacketCoder one_block(CodeBlockStyle style) {
  const CodeBlockGrid grid{1, 1};
  auto coder = PrecinctPacketCoder::create({&grid, 1}, style);
  EXPECT_TRUE(coder.ok());
  return std::move(coder).value();
}

TEST(HtPacketHeader, EncoderRoundTripAcrossLayers) {
  // Cleanup in layer 0, SigProp in layer 1, MagRef in layer 2: one
  // refinement segment spanning two packets.
  PrecinctPacketCoder enc = one_block(ht_style()), dec = one_block(ht_style());
  ASSERT_TRUE(enc.set_code_block(0, 0, 5).ok());
  const std::vector<std::vector<uint32_t>> lengths = {{700}, {9}, {4}};
  std::vector<CodeBlockContribution> got;
  for (int layer = 0; layer < 3; ++layer) {
    CodeBlockContribution c;
    c.new_passes = 1;
    c.lengths = lengths[layer];
    std::vector<uint8_t> out;
    ASSERT_TRUE(enc.encode_header(layer, {&c, 1}, false, out).ok());
    auto used = dec.decode_header(layer, out, got);
    ASSERT_TRUE(used.ok()) << used.status().to_string();
    EXPECT_EQ(*used, out.size());
    EXPECT_EQ(got[0].new_passes, 1);
    EXPECT_EQ(got[0].lengths, lengths[layer]);
    EXPECT_TRUE(got[0].ht);
    EXPECT_EQ(got[0].continues_segment, layer == 2) << "layer " << layer;
  }
  EXPECT_EQ(dec.passes_so_far(0), 3);
}

TEST(HtPacketHeader, PlaceholderPassesJoinTheFirstCleanup) {
  // Four passes: three placeholders and the cleanup (pass 3), whose length
  // takes Lblock + floor(log2 4) = 5 bits; then SigProp + MagRef.
  Bits b;
  first_inclusion(b.w, 2);
  b.w.put_bits(0b1111, 4);  // 6 passes: "1111" + 5 bits of 0
  b.w.put_bits(0, 5);
  b.w.put_bit(0);           // Lblock stays 3
  b.w.put_bits(21, 5);      // cleanup segment: 21 bytes
  b.w.put_bits(6, 4);       // refinement segment (2 passes): 3 + 1 bits
  b.w.flush();
  PrecinctPacketCoder dec = one_block(ht_style());
  std::vector<CodeBlockContribution> got;
  auto used = dec.decode_header(0, b.bytes, got);
  ASSERT_TRUE(used.ok()) << used.status().to_string();
  EXPECT_EQ(got[0].new_passes, 6);
  EXPECT_EQ(got[0].zero_bitplanes, 2);
  EXPECT_EQ(got[0].lengths, std::vector<uint32_t>({21, 6}));
  EXPECT_FALSE(got[0].continues_segment);
  EXPECT_TRUE(got[0].ht);
}

TEST(HtPacketHeader, PlaceholdersAloneThenCleanupInTheNextPacket) {
  Bits b;
  first_inclusion(b.w, 0);
  b.w.put_bits(0b1100, 4);  // 3 passes
  b.w.put_bit(0);
  b.w.put_bits(0, 3 + 1);   // one length over 3 passes: 0, placeholders
  b.w.flush();
  PrecinctPacketCoder dec = one_block(ht_style());
  std::vector<CodeBlockContribution> got;
  auto used = dec.decode_header(0, b.bytes, got);
  ASSERT_TRUE(used.ok()) << used.status().to_string();
  EXPECT_EQ(got[0].lengths, std::vector<uint32_t>({0}));
  // Layer 1: the cleanup (pass 3), continuing the placeholders' segment.
  Bits c;
  c.w.put_bit(1);
  c.w.put_bit(1);   // included again
  c.w.put_bit(0);   // 1 pass
  c.w.put_bit(0);
  c.w.put_bits(5, 3);
  c.w.flush();
  used = dec.decode_header(1, c.bytes, got);
  ASSERT_TRUE(used.ok()) << used.status().to_string();
  EXPECT_EQ(got[0].lengths, std::vector<uint32_t>({5}));
  EXPECT_TRUE(got[0].continues_segment);
  EXPECT_EQ(dec.passes_so_far(0), 4);
}

TEST(HtPacketHeader, PlaceholderBytesAreCorruptUnlessMixed) {
  // (Three passes whose cleanup length is not 0 are cleanup, SigProp and
  // MagRef; only a zero cleanup length makes them placeholders.)
  Bits b;
  first_inclusion(b.w, 0);
  b.w.put_bits(0b1100, 4);  // 3 passes
  b.w.put_bit(0);
  // The cleanup's 3 length bits say 0 (placeholders), but the length over
  // all 3 passes (3 + 1 bits) says 1 byte.
  b.w.put_bits(1, 4);
  b.w.flush();
  std::vector<CodeBlockContribution> got;
  PrecinctPacketCoder ht = one_block(ht_style());
  EXPECT_FALSE(ht.decode_header(0, b.bytes, got).ok());
  // Under HTMIXED the same bits are a Part 1 block's three passes.
  PrecinctPacketCoder mixed = one_block(ht_style(true));
  auto used = mixed.decode_header(0, b.bytes, got);
  ASSERT_TRUE(used.ok()) << used.status().to_string();
  EXPECT_FALSE(got[0].ht);
  EXPECT_EQ(got[0].lengths, std::vector<uint32_t>({1}));
}

TEST(HtPacketHeader, MixedTellsHtBlocksByTheirFirstLength) {
  // HTMIXED, one cleanup pass: with Lblock raised to 4 and the length's top
  // bit clear, the block is HT; with Lblock 3 it is Part 1's.
  auto header = [](int lblock_increment, uint32_t length) {
    Bits b;
    first_inclusion(b.w, 1);
    b.w.put_bit(0);  // 1 pass
    for (int i = 0; i < lblock_increment; ++i) b.w.put_bit(1);
    b.w.put_bit(0);
    b.w.put_bits(length, 3 + lblock_increment);
    b.w.flush();
    return b.bytes;
  };
  std::vector<CodeBlockContribution> got;
  PrecinctPacketCoder a = one_block(ht_style(true));
  ASSERT_TRUE(a.decode_header(0, header(1, 7), got).ok());
  EXPECT_TRUE(got[0].ht);
  EXPECT_EQ(got[0].lengths, std::vector<uint32_t>({7}));
  PrecinctPacketCoder b = one_block(ht_style(true));
  ASSERT_TRUE(b.decode_header(0, header(0, 7), got).ok());
  EXPECT_FALSE(got[0].ht);
  // Part 1 blocks go on under Part 1's rules: a later pass continues.
  PrecinctPacketCoder c = one_block(ht_style(true));
  ASSERT_TRUE(c.decode_header(0, header(1, 12), got).ok());  // top bit set: Part 1
  EXPECT_FALSE(got[0].ht);
}

TEST(HtPacketHeader, WriterRefusesMixed) {
  PrecinctPacketCoder enc = one_block(ht_style(true));
  ASSERT_TRUE(enc.set_code_block(0, 0, 0).ok());
  CodeBlockContribution c;
  c.new_passes = 1;
  c.lengths = {3};
  std::vector<uint8_t> out;
  EXPECT_EQ(enc.encode_header(0, {&c, 1}, false, out).code(), ErrorCode::kUnsupported);
}

}  // namespace
}  // namespace mallat::codec
