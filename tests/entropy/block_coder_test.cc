// The block coder interface (entropy/block_coder.h): the EBCOT coder through
// it gives what direct calls of encode_code_block and decode_code_block
// give, bit for bit, on random blocks of every Part 1 style, whole batches
// at a time on a pool; the caller's per-block and beside work runs once
// each; HT code-blocks get the HT coder, which through the interface gives
// what direct calls of encode_ht_code_block and decode_ht_code_block give.
// (That the decoder's info gives each sample's known plane:
// tests/quant/dequantize_test.cc.)
#include "entropy/block_coder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "entropy/ht/code_block.h"

namespace mallat::entropy {
namespace {

struct Block {
  int w = 0, h = 0, mb = 0, fraction_bits = 0;
  BandOrientation orientation = BandOrientation::kLL;
  CodeBlockStyle style;
  std::vector<int32_t> v;
  PlaneView<const int32_t> view() const { return {v.data(), w, h, w}; }
};

// Magnitudes below 2^(mb + fraction_bits) spread over all planes, a share
// of them zero, random signs; shapes from 1 x n to 64 x 64 and the extremes
// of A.6.1.
Block random_block(std::mt19937& rng, const CodeBlockStyle& style) {
  static constexpr int kShapes[][2] = {{64, 64}, {32, 32}, {1, 1},    {1, 37},  {29, 3},
                                       {5, 64},  {1024, 4}, {4, 1024}, {17, 13}};
  Block b;
  const auto& shape = kShapes[rng() % std::size(kShapes)];
  b.w = shape[0];
  b.h = shape[1];
  b.mb = 1 + static_cast<int>(rng() % 18);
  b.fraction_bits = rng() % 3 == 0 ? static_cast<int>(rng() % 9) : 0;
  b.orientation = static_cast<BandOrientation>(rng() % 4);
  b.style = style;
  b.v.resize(static_cast<size_t>(b.w) * b.h);
  std::uniform_real_distribution<double> u(0, 1);
  const int bits = b.mb + b.fraction_bits;
  const double zeros = u(rng) * 0.9;
  for (int32_t& x : b.v) {
    if (u(rng) < zeros) continue;
    const int top = static_cast<int>(u(rng) * bits);
    const auto m = static_cast<int32_t>(u(rng) * ((int64_t{1} << (top + 1)) - 1));
    x = rng() % 2 ? -m : m;
  }
  return b;
}

std::vector<Block> random_blocks(uint32_t seed, int per_style) {
  std::mt19937 rng(seed);
  std::vector<Block> blocks;
  for (int byte = 0; byte < 64; ++byte) {
    for (int i = 0; i < per_style; ++i) {
      blocks.push_back(random_block(rng, CodeBlockStyle::from_byte(static_cast<uint8_t>(byte))));
    }
  }
  return blocks;
}

void expect_same(const EncodedCodeBlock& a, const EncodedCodeBlock& b, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(a.data, b.data);
  EXPECT_EQ(a.zero_bitplanes, b.zero_bitplanes);
  ASSERT_EQ(a.num_passes, b.num_passes);
  ASSERT_EQ(a.passes.size(), b.passes.size());
  for (size_t i = 0; i < a.passes.size(); ++i) {
    EXPECT_EQ(a.passes[i].cumulative_length, b.passes[i].cumulative_length) << "pass " << i;
    EXPECT_EQ(a.passes[i].terminated, b.passes[i].terminated) << "pass " << i;
    EXPECT_EQ(a.passes[i].distortion_decrease, b.passes[i].distortion_decrease) << "pass " << i;
  }
}

std::vector<BlockToEncode> batch_of(const std::vector<Block>& blocks) {
  std::vector<BlockToEncode> batch;
  for (const Block& b : blocks) batch.push_back({b.view(), b.orientation, b.mb, b.style, b.fraction_bits});
  return batch;
}

std::string describe(const Block& b, size_t i) {
  return "block " + std::to_string(i) + " " + std::to_string(b.w) + "x" + std::to_string(b.h) + " style " +
         std::to_string(b.style.to_byte()) + " Mb " + std::to_string(b.mb) + " F " + std::to_string(b.fraction_bits);
}

TEST(BlockCoder, EbcotEncoderMatchesDirectCalls) {
  const std::vector<Block> blocks = random_blocks(1, 6);
  ThreadPool pool(4);
  auto coder = make_block_encoder(CodeBlockStyle{});
  ASSERT_TRUE(coder.ok()) << coder.status().to_string();
  EXPECT_EQ((*coder)->name(), "ebcot");
  std::vector<EncodedCodeBlock> out(blocks.size());
  ASSERT_TRUE((*coder)->encode(batch_of(blocks), out, pool).ok());
  for (size_t i = 0; i < blocks.size(); ++i) {
    const Block& b = blocks[i];
    auto direct = encode_code_block(b.view(), b.orientation, b.mb, b.style, b.fraction_bits);
    ASSERT_TRUE(direct.ok());
    expect_same(out[i], *direct, describe(b, i));
  }
}

// A truncation of an encoded block as Tier-2 would hand it over: the first
// `passes` passes, their bytes cut into up to three pieces.
struct Truncated {
  const Block* block = nullptr;
  EncodedCodeBlock coded;
  int passes = 0;
  std::vector<uint32_t> lengths;
  std::vector<std::span<const uint8_t>> pieces;
};

std::vector<Truncated> truncations(const std::vector<Block>& blocks, std::mt19937& rng) {
  std::vector<Truncated> out(blocks.size());
  for (size_t i = 0; i < blocks.size(); ++i) {
    const Block& b = blocks[i];
    Truncated& t = out[i];
    t.block = &b;
    t.coded = *encode_code_block(b.view(), b.orientation, b.mb, b.style, b.fraction_bits);
    // Mostly partial decodes, which need the known planes.
    t.passes = t.coded.num_passes == 0 ? 0 : 1 + static_cast<int>(rng() % t.coded.num_passes);
    t.lengths = codeword_segment_lengths(t.coded, t.passes);
    const uint32_t bytes = t.passes == 0 ? 0 : t.coded.passes[t.passes - 1].cumulative_length;
    const std::span<const uint8_t> all(t.coded.data.data(), bytes);
    const uint32_t cut1 = bytes == 0 ? 0 : static_cast<uint32_t>(rng() % (bytes + 1));
    const uint32_t cut2 = cut1 + (bytes == cut1 ? 0 : static_cast<uint32_t>(rng() % (bytes - cut1 + 1)));
    switch (rng() % 3) {
      case 0: t.pieces = {all}; break;
      case 1: t.pieces = {all.subspan(0, cut1), all.subspan(cut1)}; break;
      default: t.pieces = {all.subspan(0, cut1), all.subspan(cut1, cut2 - cut1), all.subspan(cut2)}; break;
    }
  }
  return out;
}

CodeBlockToDecode direct_input(const Truncated& t) {
  CodeBlockToDecode in;
  const uint32_t bytes = t.passes == 0 ? 0 : t.coded.passes[t.passes - 1].cumulative_length;
  in.data = std::span<const uint8_t>(t.coded.data.data(), bytes);
  in.segment_lengths = t.lengths;
  in.num_passes = t.passes;
  in.zero_bitplanes = t.coded.zero_bitplanes;
  in.num_bitplanes = t.block->mb;  // the fraction bits are not coded
  in.orientation = t.block->orientation;
  in.style = t.block->style;
  return in;
}

BlockToDecode interface_input(const Truncated& t) {
  const CodeBlockToDecode in = direct_input(t);
  return {t.pieces, in.segment_lengths, in.num_passes, in.zero_bitplanes, in.num_bitplanes, in.orientation, in.style};
}

TEST(BlockCoder, EbcotDecoderMatchesDirectCalls) {
  const std::vector<Block> blocks = random_blocks(2, 6);
  std::mt19937 rng(3);
  const std::vector<Truncated> coded = truncations(blocks, rng);
  std::vector<BlockToDecode> batch;
  std::vector<std::vector<int32_t>> samples(coded.size());
  std::vector<DecodedBlock> out(coded.size());
  for (size_t i = 0; i < coded.size(); ++i) {
    batch.push_back(interface_input(coded[i]));
    samples[i].assign(blocks[i].v.size(), 12345);
    out[i].samples = {samples[i].data(), blocks[i].w, blocks[i].h, blocks[i].w};
  }
  ThreadPool pool(4);
  auto coder = make_block_decoder(CodeBlockStyle{});
  ASSERT_TRUE(coder.ok()) << coder.status().to_string();
  ASSERT_TRUE((*coder)->decode(batch, out, pool).ok());
  for (size_t i = 0; i < coded.size(); ++i) {
    SCOPED_TRACE(describe(blocks[i], i) + " passes " + std::to_string(coded[i].passes));
    const Block& b = blocks[i];
    std::vector<int32_t> direct(b.v.size(), -777);
    auto info = decode_code_block(direct_input(coded[i]), {direct.data(), b.w, b.h, b.w});
    ASSERT_TRUE(info.ok());
    ASSERT_TRUE(out[i].status.ok()) << out[i].status.to_string();
    EXPECT_EQ(samples[i], direct);
    EXPECT_EQ(out[i].info.lowest_plane, info->lowest_plane);
    EXPECT_EQ(out[i].info.ended_in_significance_pass, info->ended_in_significance_pass);
  }
}

TEST(BlockCoder, BatchWorkRunsOncePerBlockBesideTheBatch) {
  std::vector<Block> blocks = random_blocks(6, 1);
  for (Block& b : blocks) {
    // The indices alone, which decode back as they are.
    for (int32_t& x : b.v) x = x < 0 ? -(-x >> b.fraction_bits) : x >> b.fraction_bits;
    b.fraction_bits = 0;
  }
  ThreadPool pool(3);
  // Encoding: `each` runs before each block is coded, so what it writes is
  // what gets coded: here it negates the block.
  std::vector<Block> negated = blocks;
  for (Block& b : negated)
    for (int32_t& x : b.v) x = -x;
  std::vector<std::atomic<int>> seen(blocks.size());
  std::vector<std::atomic<int>> items(5);
  BatchWork work;
  work.each = [&](size_t i) {
    ++seen[i];
    for (int32_t& x : blocks[i].v) x = -x;
  };
  work.items = 5;
  work.item = [&](int64_t i) { ++items[i]; };
  auto encoder = make_block_encoder(CodeBlockStyle{}).value();
  std::vector<EncodedCodeBlock> out(blocks.size());
  const Status encoded = encoder->encode(batch_of(blocks), out, pool, work);
  ASSERT_TRUE(encoded.ok()) << encoded.to_string();
  for (size_t i = 0; i < blocks.size(); ++i) {
    EXPECT_EQ(seen[i], 1);
    const Block& b = negated[i];
    expect_same(out[i], *encode_code_block(b.view(), b.orientation, b.mb, b.style, b.fraction_bits), describe(b, i));
  }
  for (auto& n : items) EXPECT_EQ(n, 1);

  // Decoding: `each` runs after each block that decoded, and only those; a
  // block with impossible parameters fails alone.
  std::vector<BlockToDecode> batch;
  std::vector<std::vector<int32_t>> samples(out.size());
  std::vector<DecodedBlock> decoded(out.size());
  for (size_t i = 0; i < out.size(); ++i) {
    const Block& b = negated[i];
    batch.push_back({});
    batch[i].num_passes = out[i].num_passes;
    batch[i].zero_bitplanes = out[i].zero_bitplanes;
    batch[i].num_bitplanes = b.mb;
    batch[i].orientation = b.orientation;
    batch[i].style = b.style;
    samples[i].resize(b.v.size());
    decoded[i].samples = {samples[i].data(), b.w, b.h, b.w};
  }
  std::vector<std::vector<uint32_t>> lengths(out.size());
  std::vector<std::span<const uint8_t>> pieces(out.size());
  for (size_t i = 0; i < out.size(); ++i) {
    lengths[i] = codeword_segment_lengths(out[i], out[i].num_passes);
    pieces[i] = out[i].data;
    batch[i].pieces = {&pieces[i], 1};
    batch[i].segment_lengths = lengths[i];
  }
  const size_t bad = 7;
  batch[bad].num_passes = 3 * batch[bad].num_bitplanes;  // more than the planes allow
  for (auto& n : seen) n = 0;
  for (auto& n : items) n = 0;
  work.each = [&](size_t i) { ++seen[i]; };
  auto decoder = make_block_decoder(CodeBlockStyle{}).value();
  ASSERT_TRUE(decoder->decode(batch, decoded, pool, work).ok());
  for (size_t i = 0; i < out.size(); ++i) {
    if (i == bad) {
      EXPECT_FALSE(decoded[i].status.ok());
      EXPECT_EQ(decoded[i].status.code(), ErrorCode::kCorruptData);
      EXPECT_EQ(seen[i], 0);
      continue;
    }
    EXPECT_TRUE(decoded[i].status.ok()) << i << ": " << decoded[i].status.to_string();
    EXPECT_EQ(seen[i], 1);
    EXPECT_EQ(samples[i], negated[i].v) << describe(negated[i], i);
  }
  for (auto& n : items) EXPECT_EQ(n, 1);
}

TEST(BlockCoder, HtStyleGetsTheHtCoder) {
  // 15444-15: bit 6 of the code-block style marks HT code-blocks.
  const CodeBlockStyle ht = CodeBlockStyle::from_byte(0x40);
  EXPECT_TRUE(ht.ht);
  EXPECT_EQ(ht.to_byte(), 0x40);
  EXPECT_EQ(block_coder_kind(ht), BlockCoderKind::kHt);
  for (int byte = 0; byte < 64; ++byte) {
    EXPECT_EQ(block_coder_kind(CodeBlockStyle::from_byte(static_cast<uint8_t>(byte))), BlockCoderKind::kEbcot);
  }
  for (uint8_t byte : {0x40, 0x48, 0x7F}) {
    const CodeBlockStyle style = CodeBlockStyle::from_byte(byte);
    auto encoder = make_block_encoder(style);
    ASSERT_TRUE(encoder.ok()) << encoder.status().to_string();
    EXPECT_EQ((*encoder)->name(), "ht");
    auto decoder = make_block_decoder(style);
    ASSERT_TRUE(decoder.ok()) << decoder.status().to_string();
    EXPECT_EQ((*decoder)->name(), "ht");
  }
}

// HT blocks coded at a random cleanup plane, some with refinement, through
// the interface and directly; decoded from a random cut at a pass, the
// bytes in up to three pieces.
TEST(BlockCoder, HtCoderMatchesDirectCalls) {
  std::mt19937 rng(9);
  std::vector<Block> blocks;
  for (int i = 0; i < 120; ++i) {
    blocks.push_back(random_block(rng, CodeBlockStyle::from_byte(static_cast<uint8_t>(rng() % 2 ? 0x40 : 0x48))));
  }
  std::vector<BlockToEncode> batch = batch_of(blocks);
  for (BlockToEncode& b : batch) {
    b.ht_cleanup_plane = b.num_bitplanes > 0 ? static_cast<int>(rng() % static_cast<unsigned>(b.num_bitplanes)) : 0;
    b.ht_refinement = b.ht_cleanup_plane > 0 && rng() % 2;
  }
  ThreadPool pool(4);
  auto encoder = make_block_encoder(CodeBlockStyle::from_byte(0x40)).value();
  std::vector<EncodedCodeBlock> out(blocks.size());
  const Status encoded = encoder->encode(batch, out, pool);
  ASSERT_TRUE(encoded.ok()) << encoded.to_string();

  std::vector<Truncated> coded(blocks.size());
  std::vector<BlockToDecode> to_decode;
  std::vector<std::vector<int32_t>> samples(blocks.size());
  std::vector<DecodedBlock> decoded(blocks.size());
  for (size_t i = 0; i < blocks.size(); ++i) {
    const Block& b = blocks[i];
    HtEncodeSettings settings;
    settings.cleanup_plane = batch[i].ht_cleanup_plane;
    settings.refinement = batch[i].ht_refinement;
    settings.vertical_causal = b.style.vertical_causal;
    auto direct = encode_ht_code_block(b.view(), b.mb, b.fraction_bits, settings);
    ASSERT_TRUE(direct.ok()) << direct.status().to_string();
    expect_same(out[i], *direct, describe(b, i));

    Truncated& t = coded[i];
    t.block = &b;
    t.coded = out[i];
    t.passes = t.coded.num_passes == 0 ? 0 : 1 + static_cast<int>(rng() % t.coded.num_passes);
    t.lengths = codeword_segment_lengths(t.coded, t.passes);
    const uint32_t bytes = t.passes == 0 ? 0 : t.coded.passes[t.passes - 1].cumulative_length;
    const std::span<const uint8_t> all(t.coded.data.data(), bytes);
    const uint32_t cut = bytes == 0 ? 0 : static_cast<uint32_t>(rng() % (bytes + 1));
    t.pieces = {all.subspan(0, cut), all.subspan(cut)};
    to_decode.push_back(interface_input(t));
    samples[i].assign(b.v.size(), 12345);
    decoded[i].samples = {samples[i].data(), b.w, b.h, b.w};
  }
  auto decoder = make_block_decoder(CodeBlockStyle::from_byte(0x40)).value();
  ASSERT_TRUE(decoder->decode(to_decode, decoded, pool).ok());
  for (size_t i = 0; i < blocks.size(); ++i) {
    const Block& b = blocks[i];
    SCOPED_TRACE(describe(b, i) + " passes " + std::to_string(coded[i].passes));
    std::vector<int32_t> direct(b.v.size(), -777);
    auto info = decode_ht_code_block(direct_input(coded[i]), {direct.data(), b.w, b.h, b.w});
    ASSERT_TRUE(info.ok()) << info.status().to_string();
    ASSERT_TRUE(decoded[i].status.ok()) << decoded[i].status.to_string();
    EXPECT_EQ(samples[i], direct);
    EXPECT_EQ(decoded[i].info.lowest_plane, info->lowest_plane);
    EXPECT_EQ(decoded[i].info.ended_in_significance_pass, info->ended_in_significance_pass);
  }
}

}  // namespace
}  // namespace mallat::entropy
