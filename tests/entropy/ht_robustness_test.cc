// Damaged HT code-blocks (entropy/ht/code_block.h): every truncation of
// valid blocks, flipped bits, random bytes, impossible Scup and Lcup,
// segment lengths past the data. The decoder must return (no crash, no
// hang, no read outside the segment: CI runs this under ASan and UBSan,
// label robustness), never an error for corrupt data, and an all-zero block
// where the cleanup segment cannot be decoded.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "entropy/ht/code_block.h"
#include "tests/entropy/ht_test_blocks.h"

namespace mallat::entropy {
namespace {

using ht_test::Block;

// Decodes `data` as a block of b's shape; the segment lengths as given.
std::vector<int32_t> decode_damaged(const Block& b, std::span<const uint8_t> data, std::vector<uint32_t> lengths,
                                    int passes, int zero_bitplanes) {
  // An exact-size copy, so that a read past the end is ASan's to see.
  const std::vector<uint8_t> bytes(data.begin(), data.end());
  std::vector<int32_t> out(b.v.size(), 12345);
  CodeBlockToDecode in;
  in.data = bytes;
  in.segment_lengths = lengths;
  in.num_passes = passes;
  in.zero_bitplanes = zero_bitplanes;
  in.num_bitplanes = b.mb;
  in.style.ht = true;
  auto info = decode_ht_code_block(in, {out.data(), b.w, b.h, b.w});
  EXPECT_TRUE(info.ok()) << info.status().message();
  for (int32_t v : out) {
    // Every sample written, and within Mb bits.
    EXPECT_NE(v, 12345);
    if (v == 12345) break;
  }
  return out;
}

Block encoded_block(std::mt19937& rng, EncodedCodeBlock& coded, bool refinement) {
  for (;;) {
    Block b = ht_test::random_block(rng, 0);
    if (b.mb < 2 || b.v.size() > 1024) continue;
    HtEncodeSettings settings;
    settings.cleanup_plane = refinement ? 1 : 0;
    settings.refinement = refinement;
    auto c = encode_ht_code_block(b.view(), b.mb, 0, settings);
    if (!c.ok() || c->num_passes == 0) continue;
    coded = *c;
    return b;
  }
}

TEST(HtRobustness, EveryTruncationDecodes) {
  std::mt19937 rng(11);
  for (int i = 0; i < 6; ++i) {
    EncodedCodeBlock coded;
    const Block b = encoded_block(rng, coded, i % 2 == 1);
    SCOPED_TRACE(b.describe());
    const uint32_t lcup = coded.passes[0].cumulative_length;
    for (uint32_t n = 0; n <= lcup; ++n) {
      // The cleanup segment cut short, its length told truthfully or not.
      decode_damaged(b, std::span(coded.data).first(n), {n}, 1, coded.zero_bitplanes);
      decode_damaged(b, std::span(coded.data).first(n), {lcup}, 1, coded.zero_bitplanes);
    }
    if (coded.num_passes < 3) continue;
    const auto total = static_cast<uint32_t>(coded.data.size());
    for (uint32_t n = lcup; n <= total; ++n) {
      for (int passes : {2, 3}) {
        decode_damaged(b, std::span(coded.data).first(n), {lcup, n - lcup}, passes, coded.zero_bitplanes);
        decode_damaged(b, std::span(coded.data).first(n), {lcup, total - lcup + 7}, passes, coded.zero_bitplanes);
      }
    }
  }
}

TEST(HtRobustness, FlippedBitsAndRandomBytesDecode) {
  std::mt19937 rng(12);
  for (int i = 0; i < 300; ++i) {
    EncodedCodeBlock coded;
    const Block b = encoded_block(rng, coded, i % 3 == 0);
    std::vector<uint8_t> data = coded.data;
    if (i % 2 == 0) {
      for (int k = 0; k < 1 + static_cast<int>(rng() % 4); ++k) data[rng() % data.size()] ^= uint8_t(1u << (rng() % 8));
    } else {
      for (uint8_t& x : data) x = static_cast<uint8_t>(rng());
    }
    std::vector<uint32_t> lengths;
    uint32_t previous = 0;
    for (const CodingPass& p : coded.passes) {
      if (p.terminated) {
        lengths.push_back(p.cumulative_length - previous);
        previous = p.cumulative_length;
      }
    }
    decode_damaged(b, data, lengths, coded.num_passes, coded.zero_bitplanes);
  }
}

TEST(HtRobustness, ImpossibleLocatorGivesAZeroBlock) {
  std::mt19937 rng(13);
  EncodedCodeBlock coded;
  const Block b = encoded_block(rng, coded, false);
  std::vector<uint8_t> data = coded.data;
  const size_t n = data.size();
  const std::vector<int32_t> zero(b.v.size(), 0);
  // Scup = 1, Scup > Lcup, Scup > 4079 (Annex C's limits), Lcup < 2.
  data[n - 1] = 0;
  data[n - 2] = static_cast<uint8_t>((data[n - 2] & 0xF0) | 1);
  EXPECT_EQ(decode_damaged(b, data, {static_cast<uint32_t>(n)}, 1, coded.zero_bitplanes), zero);
  data[n - 1] = static_cast<uint8_t>((n + 16) >> 4);
  EXPECT_EQ(decode_damaged(b, data, {static_cast<uint32_t>(n)}, 1, coded.zero_bitplanes), zero);
  data[n - 1] = 0xFF;
  EXPECT_EQ(decode_damaged(b, data, {static_cast<uint32_t>(n)}, 1, coded.zero_bitplanes), zero);
  EXPECT_EQ(decode_damaged(b, std::span(data).first(1), {1}, 1, coded.zero_bitplanes), zero);
  EXPECT_EQ(decode_damaged(b, {}, {}, 1, coded.zero_bitplanes), zero);
}

TEST(HtRobustness, ImpossibleParametersAreErrors) {
  const std::vector<uint8_t> data(8, 0);
  std::vector<int32_t> out(16);
  CodeBlockToDecode in;
  in.data = data;
  in.num_bitplanes = 4;
  in.style.ht = true;
  in.zero_bitplanes = 5;  // more than Mb
  in.num_passes = 1;
  EXPECT_FALSE(decode_ht_code_block(in, {out.data(), 4, 4, 4}).ok());
  in.zero_bitplanes = 2;
  in.num_passes = 5;  // the cleanup would land below plane 0
  EXPECT_FALSE(decode_ht_code_block(in, {out.data(), 4, 4, 4}).ok());
  in.num_passes = 4;  // the last set's cleanup at plane 0
  EXPECT_TRUE(decode_ht_code_block(in, {out.data(), 4, 4, 4}).ok());
}

}  // namespace
}  // namespace mallat::entropy
