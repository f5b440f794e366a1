#include "codec/tier2/progression.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <tuple>
#include <vector>

namespace mallat::codec {
namespace {

using Ids = std::vector<PacketId>;

TileLayout make_layout(const ImageAndTileSize& s, const std::vector<ComponentCoding>& cc, int tile = 0) {
  auto layout = build_tile_layout(s, tile, cc);
  EXPECT_TRUE(layout.ok()) << layout.status().to_string();
  return std::move(layout).value();
}

// Two components (NL = 1), one precinct per resolution, two layers.
TEST(Progression, HandWorkedLayerAndResolutionOrders) {
  ImageAndTileSize s;
  s.xsiz = s.ysiz = 16;
  s.xtsiz = s.ytsiz = 16;
  s.components = {ComponentSize{}, ComponentSize{}};
  ComponentCoding cc;
  cc.levels = 1;
  const TileLayout layout = make_layout(s, {cc, cc});
  auto lrcp = packet_order(layout, 2, ProgressionOrder::kLRCP);
  ASSERT_TRUE(lrcp.ok());
  const Ids want_lrcp = {{0, 0, 0, 0}, {0, 0, 1, 0}, {0, 1, 0, 0}, {0, 1, 1, 0},
                         {1, 0, 0, 0}, {1, 0, 1, 0}, {1, 1, 0, 0}, {1, 1, 1, 0}};
  EXPECT_EQ(*lrcp, want_lrcp);
  auto rlcp = packet_order(layout, 2, ProgressionOrder::kRLCP);
  ASSERT_TRUE(rlcp.ok());
  const Ids want_rlcp = {{0, 0, 0, 0}, {0, 0, 1, 0}, {1, 0, 0, 0}, {1, 0, 1, 0},
                         {0, 1, 0, 0}, {0, 1, 1, 0}, {1, 1, 0, 0}, {1, 1, 1, 0}};
  EXPECT_EQ(*rlcp, want_rlcp);
  auto cprl = packet_order(layout, 2, ProgressionOrder::kCPRL);
  ASSERT_TRUE(cprl.ok());
  const Ids want_cprl = {{0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {1, 1, 0, 0},
                         {0, 0, 1, 0}, {1, 0, 1, 0}, {0, 1, 1, 0}, {1, 1, 1, 0}};
  EXPECT_EQ(*cprl, want_cprl);
}

// One component 16 x 16, NL = 1, precincts 2^3 at r = 1 (2 x 2 precincts) and
// 2^2 at r = 0 (2 x 2), one layer. Positions on the reference grid:
// r0 precincts at (0,0) (8,0) (0,8) (8,8) [4 * 2^(NL-r) = 8], r1 the same.
// PCRL: at each position r0 then r1.
TEST(Progression, HandWorkedPositionOrders) {
  ImageAndTileSize s;
  s.xsiz = s.ysiz = 16;
  s.xtsiz = s.ytsiz = 16;
  s.components = {ComponentSize{}};
  ComponentCoding cc;
  cc.levels = 1;
  cc.xcb = cc.ycb = 2;
  cc.precinct_exponents = {{2, 2}, {3, 3}};
  const TileLayout layout = make_layout(s, {cc});
  auto pcrl = packet_order(layout, 1, ProgressionOrder::kPCRL);
  ASSERT_TRUE(pcrl.ok());
  const Ids want_pcrl = {{0, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 0, 1}, {0, 1, 0, 1},
                         {0, 0, 0, 2}, {0, 1, 0, 2}, {0, 0, 0, 3}, {0, 1, 0, 3}};
  EXPECT_EQ(*pcrl, want_pcrl);
  auto rpcl = packet_order(layout, 1, ProgressionOrder::kRPCL);
  ASSERT_TRUE(rpcl.ok());
  const Ids want_rpcl = {{0, 0, 0, 0}, {0, 0, 0, 1}, {0, 0, 0, 2}, {0, 0, 0, 3},
                         {0, 1, 0, 0}, {0, 1, 0, 1}, {0, 1, 0, 2}, {0, 1, 0, 3}};
  EXPECT_EQ(*rpcl, want_rpcl);
}

// The standard's loops for RPCL, PCRL, CPRL (B.12.1.3-B.12.1.5) run over
// every reference-grid point of the tile, for an oracle; and plain nested
// loops for LRCP, RLCP. Packets already sent are skipped (B.12.2).
struct Oracle {
  const TileLayout& t;
  int layers;
  std::set<std::tuple<int, int, int, int>> sent;
  Ids out;

  void emit(int l, int r, int c, int p) {
    if (sent.insert({l, r, c, p}).second) out.push_back({l, r, c, p});
  }
  static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
  static int64_t floor_div(int64_t a, int64_t b) { return a / b; }

  // The precinct of (c, r) whose boundary is at (x, y), or -1.
  int precinct_at(int c, int r, int64_t x, int64_t y) const {
    const TileComponent& tc = t.components[static_cast<size_t>(c)];
    if (r > tc.levels) return -1;
    const Resolution& res = tc.resolutions[static_cast<size_t>(r)];
    if (res.rect.empty()) return -1;
    const int n = tc.levels - r;
    const int64_t sx = int64_t{tc.dx} << (res.ppx + n), sy = int64_t{tc.dy} << (res.ppy + n);
    const bool on_y = y % sy == 0 || (y == t.rect.y0 && (res.rect.y0 << n) % (int64_t{1} << (res.ppy + n)) != 0);
    const bool on_x = x % sx == 0 || (x == t.rect.x0 && (res.rect.x0 << n) % (int64_t{1} << (res.ppx + n)) != 0);
    if (!on_x || !on_y) return -1;
    const int64_t kx = floor_div(ceil_div(x, int64_t{tc.dx} << n), int64_t{1} << res.ppx) -
                       floor_div(res.rect.x0, int64_t{1} << res.ppx);
    const int64_t ky = floor_div(ceil_div(y, int64_t{tc.dy} << n), int64_t{1} << res.ppy) -
                       floor_div(res.rect.y0, int64_t{1} << res.ppy);
    EXPECT_GE(kx, 0);
    EXPECT_LT(kx, res.precincts_wide);
    EXPECT_GE(ky, 0);
    EXPECT_LT(ky, res.precincts_high);
    return static_cast<int>(kx + ky * res.precincts_wide);
  }

  void volume(ProgressionOrder order, int le, int r0, int r1, int c0, int c1) {
    const auto precincts = [&](int c, int r) {
      const TileComponent& tc = t.components[static_cast<size_t>(c)];
      return r > tc.levels ? 0 : tc.resolutions[static_cast<size_t>(r)].precinct_count();
    };
    const auto at = [&](int r, int c, int64_t x, int64_t y) {
      const int p = precinct_at(c, r, x, y);
      if (p >= 0)
        for (int l = 0; l < le; ++l) emit(l, r, c, p);
    };
    const Rect& tr = t.rect;
    switch (order) {
      case ProgressionOrder::kLRCP:
        for (int l = 0; l < le; ++l)
          for (int r = r0; r < r1; ++r)
            for (int c = c0; c < c1; ++c)
              for (int p = 0; p < precincts(c, r); ++p) emit(l, r, c, p);
        break;
      case ProgressionOrder::kRLCP:
        for (int r = r0; r < r1; ++r)
          for (int l = 0; l < le; ++l)
            for (int c = c0; c < c1; ++c)
              for (int p = 0; p < precincts(c, r); ++p) emit(l, r, c, p);
        break;
      case ProgressionOrder::kRPCL:
        for (int r = r0; r < r1; ++r)
          for (int64_t y = tr.y0; y < tr.y1; ++y)
            for (int64_t x = tr.x0; x < tr.x1; ++x)
              for (int c = c0; c < c1; ++c) at(r, c, x, y);
        break;
      case ProgressionOrder::kPCRL:
        for (int64_t y = tr.y0; y < tr.y1; ++y)
          for (int64_t x = tr.x0; x < tr.x1; ++x)
            for (int c = c0; c < c1; ++c)
              for (int r = r0; r < r1; ++r) at(r, c, x, y);
        break;
      case ProgressionOrder::kCPRL:
        for (int c = c0; c < c1; ++c)
          for (int64_t y = tr.y0; y < tr.y1; ++y)
            for (int64_t x = tr.x0; x < tr.x1; ++x)
              for (int r = r0; r < r1; ++r) at(r, c, x, y);
        break;
    }
  }
};

struct RandomTile {
  ImageAndTileSize siz;
  std::vector<ComponentCoding> coding;
  int tile = 0;
};

RandomTile random_tile(std::mt19937& rng) {
  RandomTile t;
  ImageAndTileSize& s = t.siz;
  s.xtosiz = rng() % 9;
  s.ytosiz = rng() % 9;
  s.xtsiz = 5 + rng() % 40;
  s.ytsiz = 5 + rng() % 40;
  s.xosiz = std::min<uint32_t>(s.xtosiz + rng() % 9, s.xtosiz + s.xtsiz - 1);
  s.yosiz = std::min<uint32_t>(s.ytosiz + rng() % 9, s.ytosiz + s.ytsiz - 1);
  s.xsiz = s.xosiz + 1 + rng() % 70;
  s.ysiz = s.yosiz + 1 + rng() % 70;
  const int ncomp = 1 + static_cast<int>(rng() % 3);
  for (int c = 0; c < ncomp; ++c) {
    s.components.push_back(ComponentSize{8, false, 1 + static_cast<int>(rng() % 3),
                                         1 + static_cast<int>(rng() % 3)});
    ComponentCoding cc;
    cc.levels = static_cast<int>(rng() % 4);
    cc.xcb = cc.ycb = 2;
    if (rng() % 5 != 0) {
      for (int r = 0; r <= cc.levels; ++r) {
        const int lo = r == 0 ? 0 : 1;
        cc.precinct_exponents.push_back({static_cast<uint8_t>(lo + rng() % 4),
                                         static_cast<uint8_t>(lo + rng() % 4)});
      }
    }
    t.coding.push_back(cc);
  }
  t.tile = static_cast<int>(rng() % (s.tiles_x() * s.tiles_y()));
  return t;
}

const ProgressionOrder kOrders[] = {ProgressionOrder::kLRCP, ProgressionOrder::kRLCP,
                                    ProgressionOrder::kRPCL, ProgressionOrder::kPCRL,
                                    ProgressionOrder::kCPRL};

// Every order against the standard's loops on random tiles with sub-sampled
// components, different NL per component and precincts of different sizes.
TEST(Progression, MatchesStandardLoopsOnRandomTiles) {
  std::mt19937 rng(2024);
  for (int iter = 0; iter < 250; ++iter) {
    const RandomTile rt = random_tile(rng);
    const TileLayout layout = make_layout(rt.siz, rt.coding, rt.tile);
    const int layers = 1 + static_cast<int>(rng() % 3);
    const int64_t total = layout.precinct_count() * layers;
    for (ProgressionOrder order : kOrders) {
      Oracle oracle{layout, layers, {}, {}};
      oracle.volume(order, layers, 0, layout.max_resolutions(), 0,
                    static_cast<int>(layout.components.size()));
      auto got = packet_order(layout, layers, order);
      ASSERT_TRUE(got.ok());
      ASSERT_EQ(static_cast<int64_t>(oracle.out.size()), total)
          << "the standard's loops miss packets, iter " << iter;
      ASSERT_EQ(got->size(), oracle.out.size());
      for (size_t i = 0; i < got->size(); ++i) {
        const PacketId& a = (*got)[i];
        const PacketId& b = oracle.out[i];
        ASSERT_EQ(a, b) << "iter " << iter << " order " << static_cast<int>(order) << " packet " << i
                        << ": got l" << a.layer << " r" << a.resolution << " c" << a.component
                        << " p" << a.precinct << ", want l" << b.layer << " r" << b.resolution
                        << " c" << b.component << " p" << b.precinct;
      }
    }
  }
}

// POC: volumes in turn, each packet once; against the oracle run volume by volume.
TEST(Progression, ProgressionChangesOnRandomTiles) {
  std::mt19937 rng(77);
  for (int iter = 0; iter < 200; ++iter) {
    const RandomTile rt = random_tile(rng);
    const TileLayout layout = make_layout(rt.siz, rt.coding, rt.tile);
    const int layers = 1 + static_cast<int>(rng() % 4);
    const int nres = layout.max_resolutions();
    const int ncomp = static_cast<int>(layout.components.size());
    std::vector<ProgressionChange> changes;
    const int nchanges = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < nchanges; ++k) {
      ProgressionChange ch;
      ch.resolution_start = static_cast<int>(rng() % nres);
      ch.resolution_end = ch.resolution_start + 1 + static_cast<int>(rng() % (nres + 1));
      ch.component_start = static_cast<int>(rng() % ncomp);
      ch.component_end = ch.component_start + 1 + static_cast<int>(rng() % 3);
      ch.layer_end = 1 + static_cast<int>(rng() % (layers + 1));
      ch.order = kOrders[rng() % 5];
      changes.push_back(ch);
    }
    const ProgressionOrder def = kOrders[rng() % 5];
    for (bool complete : {false, true}) {
      Oracle oracle{layout, layers, {}, {}};
      for (const ProgressionChange& ch : changes) {
        oracle.volume(ch.order, std::min(ch.layer_end, layers), ch.resolution_start,
                      std::min(ch.resolution_end, nres), ch.component_start,
                      std::min(ch.component_end, ncomp));
      }
      if (complete) oracle.volume(def, layers, 0, nres, 0, ncomp);
      ProgressionOptions opt;
      opt.complete_with_default_order = complete;
      auto got = packet_order(layout, layers, def, changes, opt);
      ASSERT_TRUE(got.ok());
      ASSERT_EQ(*got, oracle.out) << "iter " << iter << " complete " << complete;
      if (complete) {
        EXPECT_EQ(static_cast<int64_t>(got->size()), layout.precinct_count() * layers);
      }
    }
  }
}

TEST(Progression, RefusesTooManyPackets) {
  ImageAndTileSize s;
  s.xsiz = s.ysiz = 4096;
  s.xtsiz = s.ytsiz = 4096;
  s.components = {ComponentSize{}};
  ComponentCoding cc;
  cc.levels = 0;
  cc.precinct_exponents = {{2, 2}};
  const TileLayout layout = make_layout(s, {cc});
  ProgressionOptions opt;
  opt.max_packets = 1 << 20;
  auto got = packet_order(layout, 100, ProgressionOrder::kLRCP, {}, opt);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), ErrorCode::kResourceLimit);
  EXPECT_FALSE(packet_order(layout, 0, ProgressionOrder::kLRCP).ok());
}

}  // namespace
}  // namespace mallat::codec
