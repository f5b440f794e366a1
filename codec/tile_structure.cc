#include "codec/tile_structure.h"

#include <algorithm>
#include <string>

namespace mallat::codec {

using dwt::Band;
using dwt::ceil_div_pow2;
using dwt::floor_div_pow2;
using dwt::Rect;

namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

Rect intersect(const Rect& a, const Rect& b) {
  Rect r{std::max(a.x0, b.x0), std::max(a.y0, b.y0), std::min(a.x1, b.x1), std::min(a.y1, b.y1)};
  if (r.x1 < r.x0) r.x1 = r.x0;
  if (r.y1 < r.y0) r.y1 = r.y0;
  return r;
}

// B.7: the code-blocks of `band` inside the precinct cell `cell` (band
// coordinates): a grid of 2^xcb x 2^ycb anchored at 0, clipped to both.
PrecinctBand code_blocks_of(const Rect& band_rect, const Rect& packed, const Rect& cell, Band band,
                            int xcb, int ycb) {
  PrecinctBand pb;
  pb.band = band;
  const Rect area = intersect(band_rect, cell);
  if (area.empty()) return pb;
  const int64_t bx0 = floor_div_pow2(area.x0, xcb), bx1 = ceil_div_pow2(area.x1, xcb);
  const int64_t by0 = floor_div_pow2(area.y0, ycb), by1 = ceil_div_pow2(area.y1, ycb);
  pb.grid_width = static_cast<int>(bx1 - bx0);
  pb.grid_height = static_cast<int>(by1 - by0);
  pb.code_blocks.reserve(static_cast<size_t>(pb.grid_width) * pb.grid_height);
  for (int64_t by = by0; by < by1; ++by) {
    for (int64_t bx = bx0; bx < bx1; ++bx) {
      const Rect cb_cell{bx << xcb, by << ycb, (bx + 1) << xcb, (by + 1) << ycb};
      CodeBlock cb;
      cb.rect = intersect(area, cb_cell);
      cb.packed_x = packed.x0 + (cb.rect.x0 - band_rect.x0);
      cb.packed_y = packed.y0 + (cb.rect.y0 - band_rect.y0);
      pb.code_blocks.push_back(cb);
    }
  }
  return pb;
}

}  // namespace

Rect tile_rect(const ImageAndTileSize& siz, int index) {
  const int64_t p = index % siz.tiles_x(), q = index / siz.tiles_x();
  Rect r;
  r.x0 = std::max<int64_t>(siz.xtosiz + p * siz.xtsiz, siz.xosiz);  // B-7
  r.y0 = std::max<int64_t>(siz.ytosiz + q * siz.ytsiz, siz.yosiz);
  r.x1 = std::min<int64_t>(siz.xtosiz + (p + 1) * siz.xtsiz, siz.xsiz);
  r.y1 = std::min<int64_t>(siz.ytosiz + (q + 1) * siz.ytsiz, siz.ysiz);
  return r;
}

Result<TileStructure> build_tile_structure(const ImageAndTileSize& siz, int index,
                                           const std::vector<ComponentCoding>& coding,
                                           int64_t max_code_blocks) {
  TileStructure tile;
  tile.index = index;
  tile.rect = tile_rect(siz, index);
  int64_t total_blocks = 0;
  for (size_t c = 0; c < siz.components.size(); ++c) {
    TileComponent tc;
    tc.dx = siz.components[c].dx;
    tc.dy = siz.components[c].dy;
    tc.coding = coding[c];
    // B-12: the tile-component on the component's own grid.
    tc.rect = Rect{ceil_div(tile.rect.x0, tc.dx), ceil_div(tile.rect.y0, tc.dy),
                   ceil_div(tile.rect.x1, tc.dx), ceil_div(tile.rect.y1, tc.dy)};
    const int levels = tc.coding.levels;
    for (int r = 0; r <= levels; ++r) {
      Resolution res;
      res.rect = dwt::resolution_rect(tc.rect, levels, r);
      res.ppx = tc.coding.ppx(r);
      res.ppy = tc.coding.ppy(r);
      // B.7: code-blocks never span precinct cells; above r = 0 the cells
      // are halved on the subband grid.
      const int cell_x = r == 0 ? res.ppx : res.ppx - 1;
      const int cell_y = r == 0 ? res.ppy : res.ppy - 1;
      res.xcb = std::min(tc.coding.xcb, cell_x);
      res.ycb = std::min(tc.coding.ycb, cell_y);
      if (!res.rect.empty()) {
        // B-16.
        res.precincts_wide = static_cast<int>(ceil_div_pow2(res.rect.x1, res.ppx) -
                                              floor_div_pow2(res.rect.x0, res.ppx));
        res.precincts_high = static_cast<int>(ceil_div_pow2(res.rect.y1, res.ppy) -
                                              floor_div_pow2(res.rect.y0, res.ppy));
      }
      const int64_t count = int64_t{res.precincts_wide} * res.precincts_high;
      if (count > max_code_blocks || total_blocks + count > max_code_blocks) {
        return resource_limit("tile " + std::to_string(index) + " component " +
                              std::to_string(c) + " has too many precincts");
      }
      const int64_t px0 = floor_div_pow2(res.rect.x0, res.ppx);
      const int64_t py0 = floor_div_pow2(res.rect.y0, res.ppy);
      const int nb = levels - r + 1;  // decomposition level of the bands added at r
      res.precincts.resize(static_cast<size_t>(count));
      for (int j = 0; j < res.precincts_high; ++j) {
        for (int i = 0; i < res.precincts_wide; ++i) {
          Precinct& prec = res.precincts[static_cast<size_t>(j) * res.precincts_wide + i];
          const int64_t gx = px0 + i, gy = py0 + j;
          prec.rect = intersect(res.rect, Rect{gx << res.ppx, gy << res.ppy, (gx + 1) << res.ppx,
                                               (gy + 1) << res.ppy});
          if (r == 0) {
            const Rect band_rect = levels == 0 ? tc.rect : dwt::subband_rect(tc.rect, levels, Band::kLL);
            const Rect packed = dwt::packed_subband_rect(tc.rect, levels, levels, Band::kLL);
            const Rect cell{gx << cell_x, gy << cell_y, (gx + 1) << cell_x, (gy + 1) << cell_y};
            prec.bands.push_back(code_blocks_of(band_rect, packed, cell, Band::kLL, res.xcb, res.ycb));
          } else {
            for (Band b : {Band::kHL, Band::kLH, Band::kHH}) {
              const Rect band_rect = dwt::subband_rect(tc.rect, nb, b);
              const Rect packed = dwt::packed_subband_rect(tc.rect, levels, nb, b);
              const Rect cell{gx << cell_x, gy << cell_y, (gx + 1) << cell_x, (gy + 1) << cell_y};
              prec.bands.push_back(code_blocks_of(band_rect, packed, cell, b, res.xcb, res.ycb));
            }
          }
          for (const auto& pb : prec.bands) total_blocks += static_cast<int64_t>(pb.code_blocks.size());
          if (total_blocks > max_code_blocks) {
            return resource_limit("tile " + std::to_string(index) + " has more than " +
                                  std::to_string(max_code_blocks) + " code-blocks");
          }
        }
      }
      tc.resolutions.push_back(std::move(res));
    }
    tile.components.push_back(std::move(tc));
  }
  return tile;
}

}  // namespace mallat::codec
