#include "codec/tile_structure.h"

#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "codec/packet_sequence.h"

namespace mallat::codec {
namespace {

using dwt::Band;
using dwt::Rect;

ImageAndTileSize one_component(uint32_t w, uint32_t h, uint32_t x0 = 0) {
  ImageAndTileSize siz;
  siz.xsiz = w;
  siz.ysiz = h;
  siz.xosiz = x0;
  siz.xtosiz = x0;
  siz.xtsiz = w - x0;
  siz.ytsiz = h;
  siz.components.push_back({8, false, 1, 1});
  return siz;
}

TEST(TileStructure, HandWorkedTenBySix) {
  // 10x6, one level, 4x4 code-blocks. r = 0 is LL (0,0)-(5,3): blocks
  // [0,4) and [4,5) across, one row. r = 1 has HL, LH, HH of 5x3 each,
  // packed at x = 5 (HL), y = 3 (LH) and (5, 3) (HH).
  ComponentCoding cc;
  cc.levels = 1;
  cc.xcb = cc.ycb = 2;
  auto t = build_tile_structure(one_component(10, 6), 0, {cc});
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  const TileComponent& tc = t->components[0];
  EXPECT_EQ(tc.rect, (Rect{0, 0, 10, 6}));
  ASSERT_EQ(tc.resolutions.size(), 2u);
  const Resolution& r0 = tc.resolutions[0];
  EXPECT_EQ(r0.rect, (Rect{0, 0, 5, 3}));
  ASSERT_EQ(r0.precincts.size(), 1u);
  const PrecinctBand& ll = r0.precincts[0].bands[0];
  ASSERT_EQ(ll.code_blocks.size(), 2u);
  EXPECT_EQ(ll.code_blocks[0].rect, (Rect{0, 0, 4, 3}));
  EXPECT_EQ(ll.code_blocks[1].rect, (Rect{4, 0, 5, 3}));
  const Resolution& r1 = tc.resolutions[1];
  ASSERT_EQ(r1.precincts[0].bands.size(), 3u);
  const PrecinctBand& hl = r1.precincts[0].bands[0];
  EXPECT_EQ(hl.band, Band::kHL);
  ASSERT_EQ(hl.code_blocks.size(), 2u);
  EXPECT_EQ(hl.code_blocks[1].packed_x, 9);  // 5 (LL width) + 4
  EXPECT_EQ(hl.code_blocks[1].packed_y, 0);
  const PrecinctBand& hh = r1.precincts[0].bands[2];
  EXPECT_EQ(hh.code_blocks[0].packed_x, 5);
  EXPECT_EQ(hh.code_blocks[0].packed_y, 3);
}

TEST(TileStructure, OddOriginAndPrecincts) {
  // Tile-component [3, 10) x [0, 1): LL is [2, 5), HL is [1, 5) (B-15).
  ComponentCoding cc;
  cc.levels = 1;
  auto t = build_tile_structure(one_component(10, 1, 3), 0, {cc});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->components[0].resolutions[0].precincts[0].bands[0].code_blocks[0].rect, (Rect{2, 0, 5, 1}));
  EXPECT_EQ(t->components[0].resolutions[1].precincts[0].bands[0].code_blocks[0].rect, (Rect{1, 0, 5, 1}));
  EXPECT_EQ(t->components[0].resolutions[1].precincts[0].bands[0].code_blocks[0].packed_x, 3);

  // 64x64, 2 levels, precincts 2^4 everywhere: r = 2 is 64 wide -> 4x4
  // precincts; code-blocks capped at 2^(4-1) = 8 on the subband grid.
  cc.levels = 2;
  cc.precinct_exponents = {{4, 4}, {4, 4}, {4, 4}};
  auto p = build_tile_structure(one_component(64, 64), 0, {cc});
  ASSERT_TRUE(p.ok());
  const Resolution& r2 = p->components[0].resolutions[2];
  EXPECT_EQ(r2.precincts_wide, 4);
  EXPECT_EQ(r2.precincts_high, 4);
  EXPECT_EQ(r2.xcb, 3);
  // Each precinct's HL part is 8x8 of the 32x32 HL band: one code-block.
  EXPECT_EQ(r2.precincts[5].bands[0].code_blocks.size(), 1u);
  EXPECT_EQ(r2.precincts[5].bands[0].code_blocks[0].rect, (Rect{8, 8, 16, 16}));
  EXPECT_EQ(p->components[0].resolutions[0].precincts_wide, 1);  // 16x16 LL
}

TEST(PacketSequence, EveryPacketOnceInOrder) {
  ImageAndTileSize siz = one_component(64, 48);
  siz.components.push_back({8, false, 2, 2});
  ComponentCoding cc;
  cc.levels = 2;
  cc.precinct_exponents = {{3, 3}, {3, 3}, {4, 4}};
  auto t = build_tile_structure(siz, 0, {cc, cc});
  ASSERT_TRUE(t.ok());
  int precincts = 0;
  for (const auto& tc : t->components)
    for (const auto& r : tc.resolutions) precincts += static_cast<int>(r.precincts.size());
  for (int order = 0; order < 5; ++order) {
    auto seq = packet_sequence(*t, static_cast<ProgressionOrder>(order), 3);
    ASSERT_EQ(static_cast<int>(seq.size()), 3 * precincts) << order;
    std::set<std::tuple<int, int, int, int>> seen;
    for (const auto& id : seq) seen.insert({id.layer, id.resolution, id.component, id.precinct});
    EXPECT_EQ(static_cast<int>(seen.size()), 3 * precincts) << order;
    for (size_t i = 1; i < seq.size(); ++i) {
      const auto& a = seq[i - 1];
      const auto& b = seq[i];
      switch (static_cast<ProgressionOrder>(order)) {
        case ProgressionOrder::kLRCP:
          EXPECT_LE(std::tie(a.layer, a.resolution, a.component, a.precinct),
                    std::tie(b.layer, b.resolution, b.component, b.precinct));
          break;
        case ProgressionOrder::kRLCP:
          EXPECT_LE(std::tie(a.resolution, a.layer, a.component), std::tie(b.resolution, b.layer, b.component));
          break;
        case ProgressionOrder::kRPCL: EXPECT_LE(a.resolution, b.resolution); break;
        case ProgressionOrder::kCPRL: EXPECT_LE(a.component, b.component); break;
        case ProgressionOrder::kPCRL: break;
      }
    }
  }
  // POC: resolutions 0..1 of all layers first, then the rest; still each once.
  std::vector<ProgressionChange> poc = {{0, 0, 3, 2, 2, ProgressionOrder::kLRCP},
                                        {0, 0, 3, 3, 2, ProgressionOrder::kRLCP}};
  auto seq = packet_sequence(*t, ProgressionOrder::kLRCP, 3, poc);
  EXPECT_EQ(static_cast<int>(seq.size()), 3 * precincts);
  EXPECT_LE(seq[0].resolution, 1);
  EXPECT_EQ(seq.back().resolution, 2);
}

}  // namespace
}  // namespace mallat::codec
