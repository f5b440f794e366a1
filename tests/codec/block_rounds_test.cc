// Rate control's coding again at chosen planes (codec/stages/block_coding.h,
// encode_block_rounds): a block's rounds in one item, or through a given
// coder a batch per round, give what encode_blocks gives round by round, its per-block work once before its
// first coding and after each round in round order.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "codec/stages/block_coding.h"

namespace mallat::codec {
namespace {

constexpr int kBitplanes = 9;

// HT blocks of 16 x 16 and smaller one below the other in one plane of
// random indices that reach every plane.
EncodeTile rounds_tile(uint32_t seed) {
  std::mt19937 rng(seed);
  EncodeTile tile;
  int64_t y = 0;
  for (int k = 0; k < 24; ++k) {
    EncodeBlock b;
    b.place = {0, 0, y, 16 - k % 3, 16 - k % 5};
    b.orientation = static_cast<entropy::BandOrientation>(k % 4);
    b.style = entropy::CodeBlockStyle::from_byte(0x40);
    b.num_bitplanes = kBitplanes - k % 4;
    y += b.place.height;
    tile.blocks.push_back(b);
  }
  TilePlane plane;
  plane.rect = dwt::Rect{0, 0, 16, y};
  plane.wavelet = dwt::Wavelet::k53;
  plane.allocate();
  for (const EncodeBlock& b : tile.blocks) {
    const PlaneView<int32_t> at = b.place.in(plane.ints());
    const int32_t top = (int32_t{1} << b.num_bitplanes) - 1;
    for (int64_t r = 0; r < at.height; ++r) {
      for (int64_t c = 0; c < at.width; ++c) {
        const int32_t m = static_cast<int32_t>(rng() % static_cast<uint32_t>(top + 1)) >> (rng() % 6);
        at.row(r)[c] = rng() % 2 ? -m : m;
      }
    }
  }
  tile.planes.push_back(std::move(plane));
  return tile;
}

void expect_same(const entropy::EncodedCodeBlock& a, const entropy::EncodedCodeBlock& b) {
  EXPECT_EQ(a.data, b.data);
  EXPECT_EQ(a.num_passes, b.num_passes);
  EXPECT_EQ(a.zero_bitplanes, b.zero_bitplanes);
  ASSERT_EQ(a.passes.size(), b.passes.size());
  for (size_t p = 0; p < a.passes.size(); ++p) {
    EXPECT_EQ(a.passes[p].cumulative_length, b.passes[p].cumulative_length);
    EXPECT_EQ(a.passes[p].distortion_decrease, b.passes[p].distortion_decrease);
  }
}

// On the CPU, and through a coder given as a device coder is (one batch per
// round).
TEST(BlockRounds, EqualsEncodeBlocksRoundByRound) {
  const std::unique_ptr<entropy::BlockEncoder> given =
      entropy::make_block_encoder(entropy::CodeBlockStyle::from_byte(0x40)).value();
  for (uint32_t seed : {1u, 2u, 3u, 4u}) {
    std::mt19937 rng(seed * 7);
    EncodeTile tile = rounds_tile(seed);
    if (seed % 2 == 0) tile.hybrid_coder = given.get();
    const size_t n = tile.blocks.size();
    // Planes from not coded (-1) to above a block's Mb, and 0.
    std::vector<std::vector<int8_t>> rounds(2, std::vector<int8_t>(n));
    for (auto& r : rounds) {
      for (int8_t& p : r) p = static_cast<int8_t>(static_cast<int>(rng() % (kBitplanes + 2)) - 1);
    }
    // The plain reference: one batch per round.
    std::vector<std::vector<entropy::EncodedCodeBlock>> plain;
    ThreadPool pool(3);
    for (size_t r = 0; r < rounds.size(); ++r) {
      EncodeTile t = tile;
      t.ht_block_planes = rounds[r];
      t.ht_refinement = r == 0;
      ASSERT_TRUE(encode_blocks(t, pool, false).ok());
      plain.push_back(t.coded);
    }
    std::vector<std::vector<entropy::EncodedCodeBlock>> got(rounds.size(), std::vector<entropy::EncodedCodeBlock>(n));
    std::vector<int> before(n, 0);
    std::vector<std::vector<size_t>> order(n);
    BlockRounds work;
    const auto codable = [&](size_t r, size_t i) {
      return rounds[r][i] >= 0 && (rounds[r][i] == 0 || rounds[r][i] < tile.blocks[i].num_bitplanes);
    };
    work.before = [&](size_t i) {
      for (const size_t r : order[i]) EXPECT_FALSE(codable(r, i)) << "block " << i << " coded before it began";
      ++before[i];
    };
    work.after = [&](size_t i, size_t r, entropy::EncodedCodeBlock& coded) {
      order[i].push_back(r);
      got[r][i] = coded;
    };
    ASSERT_TRUE(encode_block_rounds(tile, rounds, pool, work).ok());
    for (size_t i = 0; i < n; ++i) {
      bool any = false;
      for (size_t r = 0; r < rounds.size(); ++r) {
        SCOPED_TRACE(testing::Message() << "seed " << seed << " block " << i << " round " << r);
        expect_same(got[r][i], plain[r][i]);
        any = any || codable(r, i);
      }
      EXPECT_EQ(before[i], any ? 1 : 0) << "block " << i;
      EXPECT_EQ(order[i], (std::vector<size_t>{0, 1})) << "block " << i;
    }
  }
}

}  // namespace
}  // namespace mallat::codec
