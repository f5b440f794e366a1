// A region of a tile-component decoded alone: which coefficients of each
// subband the inverse DWT needs to give the samples of a window exactly, and
// that inverse DWT over the window's rectangles only, level by level.
//
// Each level's synthesis (F.3.2 2D_SR, one level of F.3) is local: after the
// lifting steps of F.3.8.2 (5/3: two steps) or F.3.8.3 (9/7: four steps), a
// sample depends only on the interleaved coefficients within that many
// positions of it (each step reads one neighbour each side). So the samples
// of a window W of resolution r come out of a one-level inverse DWT of any
// rectangle E of resolution r that holds W grown by that margin (clipped to
// the resolution, where the symmetric extension of F.3.7 is the true one),
// given E's even (low-pass) positions from resolution r - 1 and its odd ones
// from the subbands of r. E's low-pass part is the window needed at r - 1,
// and so on down to resolution 0. The results equal the same samples of the
// whole transform, bit for bit: the same lifting operations on the same
// values.
#pragma once

#include <functional>
#include <vector>

#include "codec/stages/tile_buffers.h"
#include "common/status.h"
#include "dwt/dwt.h"
#include "dwt/geometry.h"

namespace mallat::codec {

// Positions each side of a sample that one level of synthesis reads,
// through its lifting steps (F.3.8.2, F.3.8.3).
int synthesis_margin(dwt::Wavelet wavelet);

// The rectangles of one plane's region, on each resolution's grid.
struct PlaneRegion {
  int levels = 0;
  // needed[r], r = 0..levels: resolution r's samples that must come out
  // exactly (needed[levels] is the window asked for).
  std::vector<dwt::Rect> needed;
  // extended[r], r = 1..levels: the rectangle of resolution r whose
  // one-level inverse DWT gives needed[r] (needed[r] grown by the margin,
  // clipped to the resolution); extended[0] is unused.
  std::vector<dwt::Rect> extended;

  // The coefficients of subband `band` of resolution r the transform reads,
  // in that subband's coordinates (B-15): needed[0] for r = 0's LL; for
  // r >= 1, the odd or even positions of extended[r] (HL: odd columns, even
  // rows; LH: even columns, odd rows; HH: odd both).
  dwt::Rect band_window(int r, dwt::Band band) const;
};

// The region of a plane of `levels` decomposition levels whose samples lie
// on plane_rect (the tile-component at the highest resolution decoded) that
// gives `window` (inside plane_rect, not empty).
PlaneRegion plane_region(const dwt::Rect& plane_rect, int levels, dwt::Wavelet wavelet, const dwt::Rect& window);

// Where the inverse DWT finds subband `band` of resolution r (kLL for
// r = 0): a plane whose rect, in that subband's coordinates (B-15), holds
// band_window(r, band); coefficients outside the band windows are never
// read.
using BandSource = std::function<const TilePlane&(int r, dwt::Band band)>;

// The inverse DWT over the region only: `out` gets the samples of
// region.needed[levels], its rect that window. Each level is a one-level
// job of `dwt`, so any backend serves.
Status inverse_dwt_region(const PlaneRegion& region, dwt::Wavelet wavelet, const BandSource& bands,
                          dwt::Backend& dwt, TilePlane& out);

}  // namespace mallat::codec
