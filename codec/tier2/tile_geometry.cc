#include "codec/tier2/tile_geometry.h"

#include <algorithm>
#include <string>

namespace mallat::codec {
namespace {

using dwt::ceil_div_pow2;
using dwt::floor_div_pow2;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }  // a >= 0, b > 0

Rect intersect(const Rect& a, const Rect& b) {
  Rect r{std::max(a.x0, b.x0), std::max(a.y0, b.y0), std::min(a.x1, b.x1), std::min(a.y1, b.y1)};
  if (r.empty()) r = Rect{r.x0, r.y0, r.x0, r.y0};
  return r;
}

Rect shifted(const Rect& r, int64_t dx, int64_t dy) {
  return Rect{r.x0 + dx, r.y0 + dy, r.x1 + dx, r.y1 + dy};
}

// Number of 2^e cells of a grid anchored at 0 that [a0, a1) touches.
int64_t cells(int64_t a0, int64_t a1, int e) {
  if (a1 <= a0) return 0;
  return ceil_div_pow2(a1, e) - floor_div_pow2(a0, e);
}

std::string where(int tile, int c, int r) {
  return "tile " + std::to_string(tile) + " component " + std::to_string(c) + " resolution " +
         std::to_string(r);
}

Status check_coding(const ComponentCoding& cc, int c) {
  const std::string at = "component " + std::to_string(c);
  if (cc.levels < 0 || cc.levels > 32) {
    return invalid_argument(at + ": " + std::to_string(cc.levels) + " decomposition levels");
  }
  if (cc.xcb < 2 || cc.xcb > 10 || cc.ycb < 2 || cc.ycb > 10 || cc.xcb + cc.ycb > 12) {
    return invalid_argument(at + ": code-block exponents " + std::to_string(cc.xcb) + "," +
                            std::to_string(cc.ycb));
  }
  if (!cc.precinct_exponents.empty()) {
    if (cc.precinct_exponents.size() != static_cast<size_t>(cc.levels) + 1) {
      return invalid_argument(at + ": " + std::to_string(cc.precinct_exponents.size()) +
                              " precinct sizes for " + std::to_string(cc.levels + 1) +
                              " resolutions");
    }
    for (int r = 0; r <= cc.levels; ++r) {
      const int lo = r == 0 ? 0 : 1;  // A.6.1: PPx, PPy >= 1 except at r = 0
      if (cc.ppx(r) < lo || cc.ppx(r) > 15 || cc.ppy(r) < lo || cc.ppy(r) > 15) {
        return invalid_argument(at + " resolution " + std::to_string(r) + ": precinct exponents " +
                                std::to_string(cc.ppx(r)) + "," + std::to_string(cc.ppy(r)));
      }
    }
  }
  return Status::Ok();
}

// B.6, B.7: the precincts of resolution r and their code-blocks.
void build_precincts(Resolution& res, int r) {
  res.precincts.resize(static_cast<size_t>(res.precinct_count()));
  const int64_t px_origin = floor_div_pow2(res.rect.x0, res.ppx);
  const int64_t py_origin = floor_div_pow2(res.rect.y0, res.ppy);
  // The precinct cell in subband coordinates is 2^(PP - 1) at r > 0 (B.6).
  const int sx = r == 0 ? res.ppx : res.ppx - 1;
  const int sy = r == 0 ? res.ppy : res.ppy - 1;
  for (int j = 0; j < res.precincts_high; ++j) {
    for (int i = 0; i < res.precincts_wide; ++i) {
      Precinct& p = res.precincts[static_cast<size_t>(j) * res.precincts_wide + i];
      const int64_t gx = px_origin + i, gy = py_origin + j;
      p.rect = intersect(Rect{gx << res.ppx, gy << res.ppy, (gx + 1) << res.ppx, (gy + 1) << res.ppy},
                         res.rect);
      const Rect cell{gx << sx, gy << sy, (gx + 1) << sx, (gy + 1) << sy};
      p.bands.resize(res.subbands.size());
      for (size_t b = 0; b < res.subbands.size(); ++b) {
        const Subband& sb = res.subbands[b];
        PrecinctBand& pb = p.bands[b];
        pb.band = sb.band;
        pb.rect = intersect(cell, sb.rect);
        if (pb.rect.empty()) continue;
        const int64_t bx0 = floor_div_pow2(pb.rect.x0, res.xcb);
        const int64_t by0 = floor_div_pow2(pb.rect.y0, res.ycb);
        pb.grid.width = static_cast<int>(cells(pb.rect.x0, pb.rect.x1, res.xcb));
        pb.grid.height = static_cast<int>(cells(pb.rect.y0, pb.rect.y1, res.ycb));
        pb.blocks.resize(static_cast<size_t>(pb.grid.width) * static_cast<size_t>(pb.grid.height));
        for (int v = 0; v < pb.grid.height; ++v) {
          for (int u = 0; u < pb.grid.width; ++u) {
            const int64_t cx = bx0 + u, cy = by0 + v;
            CodeBlock& cb = pb.blocks[static_cast<size_t>(v) * pb.grid.width + u];
            cb.rect = intersect(Rect{cx << res.xcb, cy << res.ycb, (cx + 1) << res.xcb,
                                     (cy + 1) << res.ycb},
                                pb.rect);
            cb.packed = shifted(cb.rect, sb.packed.x0 - sb.rect.x0, sb.packed.y0 - sb.rect.y0);
          }
        }
      }
    }
  }
}

}  // namespace

Result<Rect> tile_rect(const ImageAndTileSize& siz, int tile_index) {
  if (siz.xtsiz == 0 || siz.ytsiz == 0) return invalid_argument("SIZ: zero tile size");
  if (siz.xsiz <= siz.xosiz || siz.ysiz <= siz.yosiz) return invalid_argument("SIZ: empty image area");
  if (siz.xtosiz > siz.xosiz || siz.ytosiz > siz.yosiz) {
    return invalid_argument("SIZ: tile grid offset beyond the image offset");
  }
  const int64_t tiles_x = ceil_div(int64_t{siz.xsiz} - siz.xtosiz, siz.xtsiz);  // B-5
  const int64_t tiles_y = ceil_div(int64_t{siz.ysiz} - siz.ytosiz, siz.ytsiz);
  if (tile_index < 0 || tile_index >= tiles_x * tiles_y) {
    return invalid_argument("tile index " + std::to_string(tile_index) + " outside the " +
                            std::to_string(tiles_x * tiles_y) + " tiles");
  }
  const int64_t p = tile_index % tiles_x, q = tile_index / tiles_x;  // B-6
  const Rect t{std::max<int64_t>(siz.xtosiz + p * siz.xtsiz, siz.xosiz),       // B-7
               std::max<int64_t>(siz.ytosiz + q * siz.ytsiz, siz.yosiz),       // B-8
               std::min<int64_t>(siz.xtosiz + (p + 1) * siz.xtsiz, siz.xsiz),  // B-9
               std::min<int64_t>(siz.ytosiz + (q + 1) * siz.ytsiz, siz.ysiz)}; // B-10
  if (t.empty()) return invalid_argument("tile " + std::to_string(tile_index) + " is empty");
  return t;
}

Rect tile_component_rect(const Rect& tile, int dx, int dy) {
  return Rect{ceil_div(tile.x0, dx), ceil_div(tile.y0, dy), ceil_div(tile.x1, dx),
              ceil_div(tile.y1, dy)};
}

std::vector<CodeBlockGrid> code_block_grids(const Precinct& precinct) {
  std::vector<CodeBlockGrid> grids;
  grids.reserve(precinct.bands.size());
  for (const PrecinctBand& b : precinct.bands) grids.push_back(b.grid);
  return grids;
}

int TileLayout::max_resolutions() const {
  int m = 0;
  for (const TileComponent& tc : components) m = std::max(m, tc.levels + 1);
  return m;
}

int64_t TileLayout::precinct_count() const {
  int64_t n = 0;
  for (const TileComponent& tc : components) {
    for (const Resolution& res : tc.resolutions) n += res.precinct_count();
  }
  return n;
}

Result<TileLayout> build_tile_layout(const ImageAndTileSize& siz, int tile_index,
                                     std::span<const ComponentCoding> coding,
                                     const LayoutLimits& limits) {
  if (coding.size() != siz.components.size()) {
    return invalid_argument("tile layout: " + std::to_string(coding.size()) +
                            " component codings for " + std::to_string(siz.components.size()) +
                            " components");
  }
  TileLayout layout;
  layout.index = tile_index;
  MALLAT_ASSIGN_OR_RETURN(layout.rect, tile_rect(siz, tile_index));

  // First pass: rectangles and counts only, so that nothing large is
  // allocated before the limits are checked.
  int64_t precincts = 0, code_blocks = 0;
  layout.components.resize(siz.components.size());
  for (size_t c = 0; c < coding.size(); ++c) {
    const ComponentCoding& cc = coding[c];
    const ComponentSize& cs = siz.components[c];
    MALLAT_RETURN_IF_ERROR(check_coding(cc, static_cast<int>(c)));
    if (cs.dx < 1 || cs.dx > 255 || cs.dy < 1 || cs.dy > 255) {
      return invalid_argument("component " + std::to_string(c) + ": sub-sampling " +
                              std::to_string(cs.dx) + "x" + std::to_string(cs.dy));
    }
    TileComponent& tc = layout.components[c];
    tc.dx = cs.dx;
    tc.dy = cs.dy;
    tc.levels = cc.levels;
    tc.rect = tile_component_rect(layout.rect, cs.dx, cs.dy);
    tc.resolutions.resize(static_cast<size_t>(cc.levels) + 1);
    for (int r = 0; r <= cc.levels; ++r) {
      Resolution& res = tc.resolutions[static_cast<size_t>(r)];
      res.rect = dwt::resolution_rect(tc.rect, cc.levels, r);
      res.ppx = cc.ppx(r);
      res.ppy = cc.ppy(r);
      res.xcb = std::min(cc.xcb, r == 0 ? res.ppx : res.ppx - 1);  // B.7
      res.ycb = std::min(cc.ycb, r == 0 ? res.ppy : res.ppy - 1);
      const int64_t pw = cells(res.rect.x0, res.rect.x1, res.ppx);  // B-16
      const int64_t ph = cells(res.rect.y0, res.rect.y1, res.ppy);
      if (pw == 0 || ph == 0) {
        res.precincts_wide = res.precincts_high = 0;
      } else {
        if (pw > limits.max_precincts || ph > limits.max_precincts ||
            pw * ph > limits.max_precincts - precincts) {
          return resource_limit(where(tile_index, static_cast<int>(c), r) + ": " +
                                std::to_string(pw) + "x" + std::to_string(ph) +
                                " precincts exceed the limit of " +
                                std::to_string(limits.max_precincts) + " per tile");
        }
        res.precincts_wide = static_cast<int>(pw);
        res.precincts_high = static_cast<int>(ph);
        precincts += pw * ph;
      }
      if (r == 0) {
        const int nb = cc.levels;
        res.subbands.push_back(Subband{Band::kLL, nb, dwt::subband_rect(tc.rect, nb, Band::kLL),
                                       dwt::packed_subband_rect(tc.rect, cc.levels, nb, Band::kLL)});
      } else {
        const int nb = cc.levels - r + 1;
        for (Band b : {Band::kHL, Band::kLH, Band::kHH}) {
          res.subbands.push_back(Subband{b, nb, dwt::subband_rect(tc.rect, nb, b),
                                         dwt::packed_subband_rect(tc.rect, cc.levels, nb, b)});
        }
      }
      // The precinct cells are multiples of the code-block size, so the
      // code-blocks of a subband are those of one grid anchored at 0 (B.7).
      for (const Subband& sb : res.subbands) {
        const int64_t n =
            cells(sb.rect.x0, sb.rect.x1, res.xcb) * cells(sb.rect.y0, sb.rect.y1, res.ycb);
        if (n > limits.max_code_blocks - code_blocks) {
          return resource_limit(where(tile_index, static_cast<int>(c), r) +
                                ": code-blocks exceed the limit of " +
                                std::to_string(limits.max_code_blocks) + " per tile");
        }
        code_blocks += n;
      }
    }
  }
  for (TileComponent& tc : layout.components) {
    for (size_t r = 0; r < tc.resolutions.size(); ++r) {
      build_precincts(tc.resolutions[r], static_cast<int>(r));
    }
  }
  return layout;
}

}  // namespace mallat::codec
