#include "codec/tier2/packet_header.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace mallat::codec {
namespace {

TEST(CodewordSegments, Termination) {
  CodeBlockStyle plain, termall, bypass;
  termall.termall = true;
  bypass.bypass = true;
  EXPECT_EQ(codeword_segment_pieces(plain, 0, 7), std::vector<int>({7}));
  EXPECT_EQ(codeword_segment_pieces(plain, 3, 0), std::vector<int>());
  EXPECT_EQ(codeword_segment_pieces(termall, 2, 3), std::vector<int>({1, 1, 1}));
  // BYPASS: passes 0..9 (MQ), 10..11 (raw SP+MRP), 12 (MQ CP), 13..14, 15, ...
  EXPECT_EQ(codeword_segment_pieces(bypass, 0, 16), std::vector<int>({10, 2, 1, 2, 1}));
  EXPECT_EQ(codeword_segment_pieces(bypass, 4, 8), std::vector<int>({6, 2}));
  EXPECT_EQ(codeword_segment_pieces(bypass, 11, 3), std::vector<int>({1, 1, 1}));
  EXPECT_EQ(codeword_segment_pieces(bypass, 13, 1), std::vector<int>({1}));
  CodeBlockStyle both = bypass;
  both.termall = true;
  EXPECT_EQ(codeword_segment_pieces(both, 0, 3), std::vector<int>({1, 1, 1}));
}

// One code-block, one packet with n passes: the header's bits are known by hand.
// Header: 1 (non-empty), inclusion tag tree for layer 0 with value 0: "1",
// zero bit-planes 0: "1", passes codeword, Lblock "0", length in 3 + floor(log2 n) bits.
TEST(PacketHeader, SingleBlockHandWorked) {
  const CodeBlockGrid grid{1, 1};
  auto coder = PrecinctPacketCoder::create({&grid, 1}, CodeBlockStyle{});
  ASSERT_TRUE(coder.ok());
  ASSERT_TRUE(coder->set_code_block(0, 0, 0).ok());
  CodeBlockContribution c;
  c.new_passes = 1;
  c.lengths = {5};
  std::vector<uint8_t> out;
  ASSERT_TRUE(coder->encode_header(0, {&c, 1}, false, out).ok());
  // 1 1 1 0 0 101 -> 1110 0101 = 0xE5
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], 0xE5);
}

// A segment length that would take more than 32 bits (B.10.7.1: Lblock
// raised to 32, then two passes add one more bit) is refused with a message
// that says where, not read. Header: 1 (non-empty), inclusion "1", zero
// bit-planes "1", two passes "10", 29 Lblock increments and their end.
TEST(PacketHeader, ASegmentLengthBeyond32BitsIsRefused) {
  const CodeBlockGrid grid{1, 1};
  auto dec = PrecinctPacketCoder::create({&grid, 1}, CodeBlockStyle{});
  ASSERT_TRUE(dec.ok());
  std::vector<uint8_t> header;
  PacketBitWriter w(header);
  for (int bit : {1, 1, 1, 1, 0}) w.put_bit(bit);
  for (int i = 0; i < 29; ++i) w.put_bit(1);
  w.put_bit(0);
  w.put_bits(0, 32);
  w.put_bits(0, 8);
  w.flush();
  std::vector<CodeBlockContribution> got;
  const auto used = dec->decode_header(0, header, got);
  ASSERT_FALSE(used.ok());
  EXPECT_EQ(used.status().message(), "packet header (layer 0, code-block 0): segment length of 33 bits");
}

// Table B.4: every pass count 1..164 round trips, including the Lblock
// increments the growing lengths need.
TEST(PacketHeader, AllPassCounts) {
  const CodeBlockGrid grid{1, 1};
  for (int n = 1; n <= kMaxPassesPerPacket; ++n) {
    auto enc = PrecinctPacketCoder::create({&grid, 1}, CodeBlockStyle{});
    auto dec = PrecinctPacketCoder::create({&grid, 1}, CodeBlockStyle{});
    ASSERT_TRUE(enc.ok() && dec.ok());
    ASSERT_TRUE(enc->set_code_block(0, 0, 3).ok());
    CodeBlockContribution c;
    c.new_passes = n;
    c.lengths = {static_cast<uint32_t>(n * 1000)};
    std::vector<uint8_t> out;
    ASSERT_TRUE(enc->encode_header(0, {&c, 1}, false, out).ok());
    std::vector<CodeBlockContribution> got;
    auto used = dec->decode_header(0, out, got);
    ASSERT_TRUE(used.ok()) << used.status().to_string();
    EXPECT_EQ(*used, out.size());
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].new_passes, n);
    EXPECT_EQ(got[0].lengths, c.lengths);
    EXPECT_TRUE(got[0].first_inclusion);
    EXPECT_EQ(got[0].zero_bitplanes, 3);
  }
}

struct Scenario {
  std::vector<CodeBlockGrid> bands;
  CodeBlockStyle style;
  int layers = 1;
  bool eph = false;
  bool sop = false;
  // [layer][block]
  std::vector<std::vector<CodeBlockContribution>> packets;
  std::vector<int> first_layer, zero_planes;
};

Scenario random_scenario(std::mt19937& rng) {
  Scenario s;
  const int nb = rng() % 2 ? 3 : 1;
  for (int b = 0; b < nb; ++b) {
    s.bands.push_back({static_cast<int>(rng() % 5), static_cast<int>(rng() % 4)});
  }
  s.style.termall = rng() % 4 == 0;
  s.style.bypass = rng() % 3 == 0;
  s.layers = 1 + static_cast<int>(rng() % 20);
  s.eph = rng() % 2;
  s.sop = rng() % 2;
  int blocks = 0;
  for (auto& g : s.bands) blocks += g.width * g.height;
  s.first_layer.resize(static_cast<size_t>(blocks));
  s.zero_planes.resize(static_cast<size_t>(blocks));
  std::vector<int> passes(static_cast<size_t>(blocks), 0);
  for (int i = 0; i < blocks; ++i) {
    s.first_layer[static_cast<size_t>(i)] =
        rng() % 6 == 0 ? TagTree::kUnknown : static_cast<int>(rng() % (s.layers + 1));
    s.zero_planes[static_cast<size_t>(i)] = static_cast<int>(rng() % 30);
  }
  for (int l = 0; l < s.layers; ++l) {
    std::vector<CodeBlockContribution> pk(static_cast<size_t>(blocks));
    const bool empty_layer = rng() % 7 == 0;
    for (int i = 0; i < blocks; ++i) {
      const auto u = static_cast<size_t>(i);
      const int fl = s.first_layer[u];
      if (fl > l || (fl < l && (empty_layer || rng() % 3 == 0))) continue;
      if (passes[u] >= 150) continue;
      int n = 1 + static_cast<int>(rng() % 12);
      if (rng() % 10 == 0) n = 1 + static_cast<int>(rng() % kMaxPassesPerPacket);
      n = std::min(n, 200 - passes[u]);
      pk[u].new_passes = n;
      for (size_t k = 0; k < codeword_segment_pieces(s.style, passes[u], n).size(); ++k) {
        uint32_t len = static_cast<uint32_t>(rng() % 50);
        if (rng() % 5 == 0) len = static_cast<uint32_t>(rng() % (1u << (rng() % 24)));
        if (rng() % 9 == 0) len = 0;
        pk[u].lengths.push_back(len);
      }
      passes[u] += n;
    }
    s.packets.push_back(std::move(pk));
  }
  return s;
}

// Random precincts over many layers: headers concatenated (as a PPM/PPT
// stream would hold them) decode to what was encoded.
TEST(PacketHeader, RandomRoundTrip) {
  std::mt19937 rng(42);
  int ff_seen = 0;
  for (int iter = 0; iter < 400; ++iter) {
    Scenario s = random_scenario(rng);
    auto enc = PrecinctPacketCoder::create(s.bands, s.style);
    auto dec = PrecinctPacketCoder::create(s.bands, s.style);
    ASSERT_TRUE(enc.ok() && dec.ok());
    for (int i = 0; i < enc->code_blocks(); ++i) {
      ASSERT_TRUE(enc->set_code_block(i, s.first_layer[static_cast<size_t>(i)],
                                      s.zero_planes[static_cast<size_t>(i)]).ok());
    }
    std::vector<uint8_t> stream;
    std::vector<size_t> ends;
    for (int l = 0; l < s.layers; ++l) {
      if (s.sop) write_sop(static_cast<uint16_t>(l), stream);
      const Status st = enc->encode_header(l, s.packets[static_cast<size_t>(l)], s.eph, stream);
      ASSERT_TRUE(st.ok()) << st.to_string();
      ends.push_back(stream.size());
    }
    for (size_t i = 0; i + 1 < stream.size(); ++i) {
      if (stream[i] == 0xFF) {
        ++ff_seen;
        ASSERT_TRUE(stream[i + 1] < 0x90 || stream[i + 1] == 0x91 || stream[i + 1] == 0x92);
      }
    }
    size_t pos = 0;
    for (int l = 0; l < s.layers; ++l) {
      std::span<const uint8_t> rest(stream.data() + pos, stream.size() - pos);
      auto sop = skip_sop(rest);
      ASSERT_TRUE(sop.ok());
      EXPECT_EQ(*sop, s.sop ? 6u : 0u);
      pos += *sop;
      std::vector<CodeBlockContribution> got;
      auto used = dec->decode_header(l, {stream.data() + pos, stream.size() - pos}, got);
      ASSERT_TRUE(used.ok()) << used.status().to_string() << " iter " << iter << " layer " << l;
      pos += *used;
      ASSERT_EQ(pos, ends[static_cast<size_t>(l)]) << "iter " << iter << " layer " << l;
      const auto& want = s.packets[static_cast<size_t>(l)];
      ASSERT_EQ(got.size(), want.size());
      for (size_t b = 0; b < got.size(); ++b) {
        ASSERT_EQ(got[b].new_passes, want[b].new_passes) << iter << " " << l << " " << b;
        ASSERT_EQ(got[b].lengths, want[b].lengths) << iter << " " << l << " " << b;
        if (got[b].first_inclusion) {
          EXPECT_EQ(s.first_layer[b], l);
          EXPECT_EQ(got[b].zero_bitplanes, s.zero_planes[b]);
        }
      }
    }
    // Truncations of the stream never crash and never read past the span.
    for (size_t cut = 0; cut < stream.size(); cut += 1 + stream.size() / 16) {
      auto d2 = PrecinctPacketCoder::create(s.bands, s.style);
      ASSERT_TRUE(d2.ok());
      std::vector<uint8_t> part(stream.begin(), stream.begin() + static_cast<long>(cut));
      size_t p = 0;
      for (int l = 0; l < s.layers; ++l) {
        std::vector<CodeBlockContribution> got;
        auto sop = skip_sop({part.data() + p, part.size() - p});
        if (!sop.ok()) break;
        p += *sop;
        auto used = d2->decode_header(l, {part.data() + p, part.size() - p}, got);
        if (!used.ok()) break;
        p += *used;
        ASSERT_LE(p, part.size());
      }
    }
  }
  EXPECT_GT(ff_seen, 0);
}

TEST(PacketHeader, EmptyPacketIsOneZeroByte) {
  const CodeBlockGrid bands[3] = {{2, 2}, {2, 2}, {1, 2}};
  auto enc = PrecinctPacketCoder::create(bands, CodeBlockStyle{});
  ASSERT_TRUE(enc.ok());
  for (int i = 0; i < enc->code_blocks(); ++i) ASSERT_TRUE(enc->set_code_block(i, 5, 0).ok());
  std::vector<CodeBlockContribution> none(static_cast<size_t>(enc->code_blocks()));
  std::vector<uint8_t> out;
  ASSERT_TRUE(enc->encode_header(0, none, true, out).ok());
  EXPECT_EQ(out, std::vector<uint8_t>({0x00, 0xFF, 0x92}));
}

TEST(PacketHeader, EncoderRejectsInconsistentInput) {
  const CodeBlockGrid grid{2, 1};
  auto enc = PrecinctPacketCoder::create({&grid, 1}, CodeBlockStyle{});
  ASSERT_TRUE(enc.ok());
  ASSERT_TRUE(enc->set_code_block(0, 1, 0).ok());
  ASSERT_TRUE(enc->set_code_block(1, 0, 0).ok());
  std::vector<CodeBlockContribution> c(2);
  std::vector<uint8_t> out;
  EXPECT_FALSE(enc->encode_header(0, c, false, out).ok());  // block 1 due in layer 0
  c[0].new_passes = 1;
  c[0].lengths = {1};
  c[1].new_passes = 1;
  c[1].lengths = {1};
  EXPECT_FALSE(enc->encode_header(0, c, false, out).ok());  // block 0 not due yet
  c[0] = {};
  c[1].lengths = {1, 2};
  EXPECT_FALSE(enc->encode_header(0, c, false, out).ok());  // wrong number of lengths
  EXPECT_FALSE(enc->encode_header(0, std::span(c.data(), 1), false, out).ok());
  EXPECT_TRUE(out.empty());
}

TEST(PacketHeader, GarbageNeverLoopsOrOverreads) {
  std::mt19937 rng(99);
  const CodeBlockGrid bands[3] = {{3, 3}, {3, 2}, {2, 3}};
  for (int iter = 0; iter < 2000; ++iter) {
    auto dec = PrecinctPacketCoder::create(bands, CodeBlockStyle{});
    ASSERT_TRUE(dec.ok());
    std::vector<uint8_t> junk(rng() % 40);
    for (auto& b : junk) b = static_cast<uint8_t>(rng() % 3 == 0 ? 0xFF : rng());
    size_t p = 0;
    for (int l = 0; l < 10; ++l) {
      std::vector<CodeBlockContribution> got;
      auto used = dec->decode_header(l, {junk.data() + p, junk.size() - p}, got);
      if (!used.ok()) {
        EXPECT_EQ(used.status().code(), ErrorCode::kCorruptData);
        break;
      }
      p += *used;
      ASSERT_LE(p, junk.size());
    }
  }
}

TEST(PacketHeader, Sop) {
  std::vector<uint8_t> out;
  write_sop(0x1234, out);
  EXPECT_EQ(out, std::vector<uint8_t>({0xFF, 0x91, 0x00, 0x04, 0x12, 0x34}));
  auto n = skip_sop(out);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 6u);
  out[3] = 5;
  EXPECT_FALSE(skip_sop(out).ok());
  const uint8_t none[2] = {0x80, 0x00};
  auto z = skip_sop(none);
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(*z, 0u);
}

}  // namespace
}  // namespace mallat::codec
