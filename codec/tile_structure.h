// The structure of one tile as the encoder and decoder walk it (Annex B):
// tile -> tile-components (B.3) -> resolutions (B.5) -> precincts (B.6) ->
// subbands -> code-blocks (B.7), with every rectangle computed once here.
#pragma once

#include <cstdint>
#include <vector>

#include "codec/params.h"
#include "common/status.h"
#include "dwt/geometry.h"

namespace mallat::codec {

struct CodeBlock {
  dwt::Rect rect;   // in the subband's own coordinates (B-15)
  int64_t packed_x = 0, packed_y = 0;  // top-left inside the packed DWT plane
};

// The code-blocks of one subband inside one precinct, raster order.
struct PrecinctBand {
  dwt::Band band = dwt::Band::kLL;
  int grid_width = 0, grid_height = 0;  // code-blocks across and down
  std::vector<CodeBlock> code_blocks;
};

struct Precinct {
  dwt::Rect rect;  // on the resolution's grid (B.6), clipped to the resolution
  std::vector<PrecinctBand> bands;  // LL at r = 0; HL, LH, HH above
};

struct Resolution {
  dwt::Rect rect;              // B-14
  int ppx = 15, ppy = 15;      // precinct size exponents
  int precincts_wide = 0, precincts_high = 0;  // B-16
  int xcb = 6, ycb = 6;        // code-block exponents after the precinct cap (B.7)
  std::vector<Precinct> precincts;  // raster order
};

struct TileComponent {
  dwt::Rect rect;    // B-12 on the component's grid
  int dx = 1, dy = 1;
  ComponentCoding coding;
  std::vector<Resolution> resolutions;  // 0 .. levels
};

struct TileStructure {
  int index = 0;
  dwt::Rect rect;  // on the reference grid (B-7..B-10)
  std::vector<TileComponent> components;
};

// B-7..B-10: the rectangle of tile `index` on the reference grid.
dwt::Rect tile_rect(const ImageAndTileSize& siz, int index);

// Builds the structure of tile `index` with each component's coding
// parameters. Refuses structures with more than `max_code_blocks`
// code-blocks in all (hostile headers).
Result<TileStructure> build_tile_structure(const ImageAndTileSize& siz, int index,
                                           const std::vector<ComponentCoding>& coding,
                                           int64_t max_code_blocks = int64_t{1} << 24);

// A.6.4: position of subband (r, band) in the QCD/QCC step list.
inline int step_index(int r, dwt::Band band) {
  return r == 0 ? 0 : 3 * (r - 1) + static_cast<int>(band);
}

}  // namespace mallat::codec
