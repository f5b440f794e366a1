#include "codec/tier2/tile_geometry.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace mallat::codec {
namespace {

ImageAndTileSize odd_siz() {
  ImageAndTileSize s;
  s.xsiz = 23;
  s.ysiz = 17;
  s.xosiz = 3;
  s.yosiz = 2;
  s.xtsiz = 8;
  s.ytsiz = 7;
  s.xtosiz = 1;
  s.ytosiz = 0;
  s.components = {ComponentSize{8, false, 1, 1}, ComponentSize{8, false, 2, 3}};
  return s;
}

// B-5..B-10 worked by hand: 3 x 3 tiles of 8 x 7 from (1, 0), image from (3, 2) to (23, 17).
TEST(TileGeometry, TileRects) {
  const ImageAndTileSize s = odd_siz();
  auto t0 = tile_rect(s, 0);
  ASSERT_TRUE(t0.ok());
  EXPECT_EQ(*t0, (Rect{3, 2, 9, 7}));
  auto t4 = tile_rect(s, 4);
  ASSERT_TRUE(t4.ok());
  EXPECT_EQ(*t4, (Rect{9, 7, 17, 14}));
  auto t8 = tile_rect(s, 8);
  ASSERT_TRUE(t8.ok());
  EXPECT_EQ(*t8, (Rect{17, 14, 23, 17}));
  EXPECT_FALSE(tile_rect(s, 9).ok());
  EXPECT_FALSE(tile_rect(s, -1).ok());
  // B-12 with XRsiz = 2, YRsiz = 3: ceil(9/2), ceil(7/3), ceil(17/2), ceil(14/3).
  EXPECT_EQ(tile_component_rect(*t4, 2, 3), (Rect{5, 3, 9, 5}));
}

// One component, tile-component (3,5)-(30,22), NL = 2, 4 x 4 code-blocks,
// precinct exponents (2,2) (2,3) (3,2) for r = 0, 1, 2. Worked by hand:
//   B-14: r2 = (3,5,30,22), r1 = (2,3,15,11), r0 = (1,2,8,6)
//   B-16: r0 2 x 2, r1 4 x 2, r2 4 x 5 precincts
//   B.7:  code-blocks r0 4x4, r1 2x4 (min(2, PPx-1) = 1), r2 4x2
//   B-15: nb=1 HL (1,3,15,11) LH (2,2,15,11) HH (1,2,15,11);
//         nb=2 HL (1,2,7,6) LH (1,1,8,5) HH (1,1,7,5); LL (1,2,8,6)
TEST(TileGeometry, HandWorkedPrecinctsAndCodeBlocks) {
  ImageAndTileSize s;
  s.xsiz = 30;
  s.ysiz = 22;
  s.xosiz = 3;
  s.yosiz = 5;
  s.xtsiz = 100;
  s.ytsiz = 100;
  s.components = {ComponentSize{}};
  ComponentCoding cc;
  cc.levels = 2;
  cc.xcb = cc.ycb = 2;
  cc.precinct_exponents = {{2, 2}, {2, 3}, {3, 2}};
  auto layout = build_tile_layout(s, 0, {&cc, 1});
  ASSERT_TRUE(layout.ok()) << layout.status().to_string();
  const TileComponent& tc = layout->components[0];
  EXPECT_EQ(tc.rect, (Rect{3, 5, 30, 22}));
  ASSERT_EQ(tc.resolutions.size(), 3u);
  const Resolution& r0 = tc.resolutions[0];
  const Resolution& r1 = tc.resolutions[1];
  const Resolution& r2 = tc.resolutions[2];
  EXPECT_EQ(r0.rect, (Rect{1, 2, 8, 6}));
  EXPECT_EQ(r1.rect, (Rect{2, 3, 15, 11}));
  EXPECT_EQ(r2.rect, (Rect{3, 5, 30, 22}));
  EXPECT_EQ(r0.precincts_wide, 2);
  EXPECT_EQ(r0.precincts_high, 2);
  EXPECT_EQ(r1.precincts_wide, 4);
  EXPECT_EQ(r1.precincts_high, 2);
  EXPECT_EQ(r2.precincts_wide, 4);
  EXPECT_EQ(r2.precincts_high, 5);
  EXPECT_EQ(layout->precinct_count(), 4 + 8 + 20);
  EXPECT_EQ(r0.xcb, 2);
  EXPECT_EQ(r0.ycb, 2);
  EXPECT_EQ(r1.xcb, 1);
  EXPECT_EQ(r1.ycb, 2);
  EXPECT_EQ(r2.xcb, 2);
  EXPECT_EQ(r2.ycb, 1);
  ASSERT_EQ(r2.subbands.size(), 3u);
  EXPECT_EQ(r2.subbands[0].rect, (Rect{1, 3, 15, 11}));
  EXPECT_EQ(r2.subbands[1].rect, (Rect{2, 2, 15, 11}));
  EXPECT_EQ(r2.subbands[2].rect, (Rect{1, 2, 15, 11}));
  EXPECT_EQ(r1.subbands[0].rect, (Rect{1, 2, 7, 6}));
  EXPECT_EQ(r1.subbands[1].rect, (Rect{1, 1, 8, 5}));
  EXPECT_EQ(r1.subbands[2].rect, (Rect{1, 1, 7, 5}));
  ASSERT_EQ(r0.subbands.size(), 1u);
  EXPECT_EQ(r0.subbands[0].rect, (Rect{1, 2, 8, 6}));

  // r1, precinct 0: [0,4)x[0,8) in the resolution; its subband cell is
  // [0,2)x[0,4); HL part (1,2,2,4), one code-block.
  const Precinct& p10 = r1.precincts[0];
  EXPECT_EQ(p10.rect, (Rect{2, 3, 4, 8}));
  ASSERT_EQ(p10.bands.size(), 3u);
  EXPECT_EQ(p10.bands[0].band, Band::kHL);
  EXPECT_EQ(p10.bands[0].rect, (Rect{1, 2, 2, 4}));
  EXPECT_EQ(p10.bands[0].grid.width, 1);
  EXPECT_EQ(p10.bands[0].grid.height, 1);
  ASSERT_EQ(p10.bands[0].blocks.size(), 1u);
  EXPECT_EQ(p10.bands[0].blocks[0].rect, (Rect{1, 2, 2, 4}));
  // Packed plane: level 2 has 7 low-pass columns (LL 1..8), 4 low-pass rows
  // (2..6), so HL starts at column 7.
  EXPECT_EQ(r1.subbands[0].packed, (Rect{7, 0, 13, 4}));
  EXPECT_EQ(p10.bands[0].blocks[0].packed, (Rect{7, 0, 8, 2}));
  // r1, precinct 5 (column 1, row 1): cell [2,4)x[4,8).
  const Precinct& p15 = r1.precincts[5];
  EXPECT_EQ(p15.bands[0].rect, (Rect{2, 4, 4, 6}));
  EXPECT_EQ(p15.bands[1].rect, (Rect{2, 4, 4, 5}));
  EXPECT_EQ(p15.bands[2].rect, (Rect{2, 4, 4, 5}));
  EXPECT_EQ(p15.bands[0].blocks.size(), 1u);
  // r2, precinct 19 (column 3, row 4): precinct grid column 3, row 5 (floor(5/4) = 1 first).
  const Precinct& p219 = r2.precincts[19];
  EXPECT_EQ(p219.rect, (Rect{24, 20, 30, 22}));
  EXPECT_EQ(p219.bands[0].rect, (Rect{12, 10, 15, 11}));
  ASSERT_EQ(p219.bands[0].blocks.size(), 1u);
  EXPECT_EQ(p219.bands[0].blocks[0].rect, (Rect{12, 10, 15, 11}));
  // r2, precinct 0: grid row 1, resolution part (3,5,8,8), HH part (1,2,4,4).
  const Precinct& p20 = r2.precincts[0];
  EXPECT_EQ(p20.rect, (Rect{3, 5, 8, 8}));
  EXPECT_EQ(p20.bands[0].rect, (Rect{1, 3, 4, 4}));
  EXPECT_EQ(p20.bands[1].rect, (Rect{2, 2, 4, 4}));
  EXPECT_EQ(p20.bands[2].rect, (Rect{1, 2, 4, 4}));
  EXPECT_EQ(p20.bands[2].grid.width, 1);
  EXPECT_EQ(p20.bands[2].grid.height, 1);
}

// A 1 x 1 tile-component with one level: resolution 1 has one precinct
// whose three subbands are all empty.
TEST(TileGeometry, EmptySubbandsInAPrecinct) {
  ImageAndTileSize s;
  s.xsiz = s.ysiz = 1;
  s.xtsiz = s.ytsiz = 1;
  s.components = {ComponentSize{}};
  ComponentCoding cc;
  cc.levels = 1;
  auto layout = build_tile_layout(s, 0, {&cc, 1});
  ASSERT_TRUE(layout.ok());
  const Resolution& r1 = layout->components[0].resolutions[1];
  ASSERT_EQ(r1.precinct_count(), 1);
  for (const PrecinctBand& b : r1.precincts[0].bands) {
    EXPECT_TRUE(b.rect.empty());
    EXPECT_EQ(b.grid.width * b.grid.height, 0);
    EXPECT_TRUE(b.blocks.empty());
  }
  const Resolution& r0 = layout->components[0].resolutions[0];
  ASSERT_EQ(r0.precinct_count(), 1);
  EXPECT_EQ(r0.precincts[0].bands[0].blocks.size(), 1u);
}

// More levels than the tile has samples: resolutions become empty and have no precincts.
TEST(TileGeometry, EmptyResolutions) {
  ImageAndTileSize s;
  s.xsiz = 40;
  s.ysiz = 3;
  s.xosiz = 37;
  s.xtsiz = s.ytsiz = 64;
  s.components = {ComponentSize{}};
  ComponentCoding cc;
  cc.levels = 5;
  auto layout = build_tile_layout(s, 0, {&cc, 1});
  ASSERT_TRUE(layout.ok());
  int empty = 0;
  for (const Resolution& r : layout->components[0].resolutions) {
    if (r.rect.empty()) {
      ++empty;
      EXPECT_EQ(r.precinct_count(), 0);
    }
  }
  EXPECT_GT(empty, 0);
}

TEST(TileGeometry, RefusesHugeCounts) {
  ImageAndTileSize s;
  s.xsiz = s.ysiz = 1u << 30;
  s.xtsiz = s.ytsiz = 1u << 30;
  s.components = {ComponentSize{}};
  ComponentCoding cc;
  cc.levels = 0;
  cc.precinct_exponents = {{0, 0}};
  auto a = build_tile_layout(s, 0, {&cc, 1});
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), ErrorCode::kResourceLimit);
  cc.precinct_exponents.clear();
  cc.xcb = cc.ycb = 2;
  auto b = build_tile_layout(s, 0, {&cc, 1});
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), ErrorCode::kResourceLimit);
}

TEST(TileGeometry, RejectsBadCoding) {
  ImageAndTileSize s = odd_siz();
  std::vector<ComponentCoding> cc(2);
  cc[1].precinct_exponents = {{1, 1}, {0, 3}};  // wrong count
  EXPECT_FALSE(build_tile_layout(s, 0, cc).ok());
  cc[1].levels = 1;
  EXPECT_FALSE(build_tile_layout(s, 0, cc).ok());  // PPx = 0 at r = 1
  cc[1].precinct_exponents = {{0, 0}, {1, 1}};
  EXPECT_TRUE(build_tile_layout(s, 0, cc).ok());
  EXPECT_FALSE(build_tile_layout(s, 0, {cc.data(), 1}).ok());
}

// Properties over random tiles: in every resolution the precincts' subband
// parts partition each subband, the code-blocks partition each precinct
// part, respect the code-block size, and their packed rectangles tile the
// packed plane exactly.
TEST(TileGeometry, RandomPartitions) {
  std::mt19937 rng(5);
  for (int iter = 0; iter < 300; ++iter) {
    ImageAndTileSize s;
    s.xtosiz = rng() % 20;
    s.ytosiz = rng() % 20;
    s.xosiz = s.xtosiz + rng() % 10;
    s.yosiz = s.ytosiz + rng() % 10;
    s.xtsiz = 1 + rng() % 70;
    s.ytsiz = 1 + rng() % 70;
    s.xosiz = std::min(s.xosiz, s.xtosiz + s.xtsiz - 1);
    s.yosiz = std::min(s.yosiz, s.ytosiz + s.ytsiz - 1);
    s.xsiz = s.xosiz + 1 + rng() % 150;
    s.ysiz = s.yosiz + 1 + rng() % 150;
    s.components = {ComponentSize{8, false, 1 + static_cast<int>(rng() % 3),
                                  1 + static_cast<int>(rng() % 3)}};
    ComponentCoding cc;
    cc.levels = static_cast<int>(rng() % 5);
    cc.xcb = 2 + static_cast<int>(rng() % 4);
    cc.ycb = 2 + static_cast<int>(rng() % 4);
    if (rng() % 4 != 0) {
      for (int r = 0; r <= cc.levels; ++r) {
        const int lo = r == 0 ? 0 : 1;
        cc.precinct_exponents.push_back({static_cast<uint8_t>(lo + rng() % 6),
                                         static_cast<uint8_t>(lo + rng() % 6)});
      }
    }
    const int tiles = static_cast<int>(s.tiles_x() * s.tiles_y());
    auto layout = build_tile_layout(s, static_cast<int>(rng() % tiles), {&cc, 1});
    ASSERT_TRUE(layout.ok()) << layout.status().to_string();
    const TileComponent& tc = layout->components[0];
    int64_t packed_area = 0;
    for (size_t r = 0; r < tc.resolutions.size(); ++r) {
      const Resolution& res = tc.resolutions[r];
      for (size_t b = 0; b < res.subbands.size(); ++b) {
        const Subband& sb = res.subbands[b];
        int64_t area = 0;
        for (const Precinct& p : res.precincts) {
          const PrecinctBand& pb = p.bands[b];
          ASSERT_EQ(pb.band, sb.band);
          if (pb.rect.empty()) continue;
          ASSERT_GE(pb.rect.x0, sb.rect.x0);
          ASSERT_LE(pb.rect.x1, sb.rect.x1);
          area += pb.rect.width() * pb.rect.height();
          int64_t block_area = 0;
          for (const CodeBlock& cb : pb.blocks) {
            ASSERT_FALSE(cb.rect.empty());
            ASSERT_LE(cb.rect.width(), int64_t{1} << res.xcb);
            ASSERT_LE(cb.rect.height(), int64_t{1} << res.ycb);
            ASSERT_GE(cb.rect.x0, pb.rect.x0);
            ASSERT_LE(cb.rect.x1, pb.rect.x1);
            ASSERT_GE(cb.rect.y0, pb.rect.y0);
            ASSERT_LE(cb.rect.y1, pb.rect.y1);
            ASSERT_EQ(cb.packed.width(), cb.rect.width());
            ASSERT_GE(cb.packed.x0, 0);
            ASSERT_LE(cb.packed.x1, tc.rect.width());
            ASSERT_LE(cb.packed.y1, tc.rect.height());
            block_area += cb.rect.width() * cb.rect.height();
          }
          ASSERT_EQ(block_area, pb.rect.width() * pb.rect.height());
        }
        const int64_t sb_area = sb.rect.empty() ? 0 : sb.rect.width() * sb.rect.height();
        ASSERT_EQ(area, sb_area) << "iter " << iter << " r " << r << " band " << b;
        packed_area += area;
      }
    }
    ASSERT_EQ(packed_area, tc.rect.width() * tc.rect.height()) << "iter " << iter;
  }
}

// Hostile SIZ/COD values: either a layout within the limits or an error, quickly.
TEST(TileGeometry, HostileValuesBounded) {
  std::mt19937 rng(11);
  LayoutLimits limits;
  limits.max_precincts = 1 << 16;
  limits.max_code_blocks = 1 << 16;
  int refused = 0;
  for (int iter = 0; iter < 300; ++iter) {
    ImageAndTileSize s;
    s.xsiz = static_cast<uint32_t>(rng()) | 1u;
    s.ysiz = static_cast<uint32_t>(rng()) | 1u;
    s.xtsiz = 1 + static_cast<uint32_t>(rng()) % s.xsiz;
    s.ytsiz = 1 + static_cast<uint32_t>(rng()) % s.ysiz;
    s.components = {ComponentSize{8, false, 1 + static_cast<int>(rng() % 255),
                                  1 + static_cast<int>(rng() % 255)}};
    ComponentCoding cc;
    cc.levels = static_cast<int>(rng() % 33);
    cc.xcb = 2 + static_cast<int>(rng() % 5);
    cc.ycb = 2 + static_cast<int>(rng() % 5);
    for (int r = 0; r <= cc.levels; ++r) {
      cc.precinct_exponents.push_back(
          {static_cast<uint8_t>((r > 0) + rng() % 15), static_cast<uint8_t>((r > 0) + rng() % 15)});
    }
    auto layout = build_tile_layout(s, 0, {&cc, 1}, limits);
    if (!layout.ok()) {
      ++refused;
      EXPECT_EQ(layout.status().code(), ErrorCode::kResourceLimit) << layout.status().to_string();
      continue;
    }
    EXPECT_LE(layout->precinct_count(), limits.max_precincts);
  }
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace mallat::codec
