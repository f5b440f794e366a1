// Annex B geometry of one tile: the tile on the reference grid (B.3), its
// tile-components (B-12), their resolutions (B-14), the precinct partition of
// each resolution (B.6), the subbands (B-15) and the code-blocks (B.7) each
// precinct holds. The encoder and decoder hang their per-code-block state
// off a TileLayout; Tier-2 (packet_header.h, progression.h) reads it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "codec/tier2/packet_header.h"
#include "codec/codestream/params.h"
#include "common/status.h"
#include "dwt/geometry.h"

namespace mallat::codec {

using dwt::Band;
using dwt::Rect;

// B-7..B-10: tile (p, q) = (index mod tiles_x, index div tiles_x) on the
// reference grid: tx0 = max(XTOsiz + p * XTsiz, XOsiz), tx1 = min(XTOsiz +
// (p + 1) * XTsiz, Xsiz), likewise in y. Checks the SIZ values it uses.
Result<Rect> tile_rect(const ImageAndTileSize& siz, int tile_index);

// B-12: the tile-component on its own (sub-sampled) grid: tcx0 = ceil(tx0 / XRsiz).
Rect tile_component_rect(const Rect& tile, int dx, int dy);

// B.7: one code-block, clipped to its subband and precinct.
struct CodeBlock {
  Rect rect;    // in subband coordinates
  Rect packed;  // where it lies in the tile-component's packed DWT plane
                // (offsets from the plane's top-left sample, dwt/geometry.h)
};

// The part of one subband that a precinct covers, and its code-blocks.
struct PrecinctBand {
  Band band = Band::kLL;
  Rect rect;                      // subband coordinates, clipped to the subband; may be empty
  CodeBlockGrid grid;             // code-blocks wide x high (0 x 0 when rect is empty)
  std::vector<CodeBlock> blocks;  // raster order, grid.width * grid.height
};

// B.6: one precinct of a resolution.
struct Precinct {
  Rect rect;                        // resolution coordinates, clipped to the resolution; may be empty
  std::vector<PrecinctBand> bands;  // r = 0: LL; r > 0: HL, LH, HH (packet order, B.10)
};

// B.5 / B-15: one subband of a resolution.
struct Subband {
  Band band = Band::kLL;
  int nb = 0;    // decomposition level (1 = finest); LL of resolution 0: levels
  Rect rect;     // subband coordinates (B-15)
  Rect packed;   // position in the packed DWT plane
};

// B.5: resolution level r of a tile-component.
struct Resolution {
  Rect rect;                 // B-14: (trx0, try0, trx1, try1)
  int ppx = 15, ppy = 15;    // precinct exponents (A.6.1, Table A.21)
  int xcb = 6, ycb = 6;      // code-block exponents in force here (B.7: min(xcb, PPx - 1), r > 0)
  int precincts_wide = 0;    // B-16: ceil(trx1 / 2^PPx) - floor(trx0 / 2^PPx), 0 if empty
  int precincts_high = 0;
  std::vector<Subband> subbands;     // r = 0: LL; r > 0: HL, LH, HH
  std::vector<Precinct> precincts;   // raster order

  int precinct_count() const { return precincts_wide * precincts_high; }
};

struct TileComponent {
  Rect rect;     // B-12, on the component's grid
  int dx = 1, dy = 1;   // XRsiz, YRsiz
  int levels = 0;       // NL
  std::vector<Resolution> resolutions;   // r = 0..levels
};

struct TileLayout {
  int index = 0;
  Rect rect;     // B-7..B-10, on the reference grid
  std::vector<TileComponent> components;

  int max_resolutions() const;   // 1 + the largest NL over the components
  int64_t precinct_count() const;   // over all components and resolutions
};

// The code-block grids of a precinct's subbands in packet order, for
// PrecinctPacketCoder::create.
std::vector<CodeBlockGrid> code_block_grids(const Precinct& precinct);

// What a layout may cost before it is refused (hostile SIZ/COD values).
struct LayoutLimits {
  int64_t max_precincts = int64_t{1} << 22;     // per tile, all components
  int64_t max_code_blocks = int64_t{1} << 24;   // per tile, all components
};

// The layout of tile `tile_index`; coding: one ComponentCoding per component
// (COD, or the component's COC).
Result<TileLayout> build_tile_layout(const ImageAndTileSize& siz, int tile_index,
                                     std::span<const ComponentCoding> coding,
                                     const LayoutLimits& limits = {});

}  // namespace mallat::codec
