// Annex B geometry of the wavelet decomposition, in one place for both DWT
// backends and the codec: resolution and subband rectangles on the
// tile-component's own grid (B-14, B-15), and where each subband sits in the
// packed ("Mallat") layout that the DWT backends produce in place.
#pragma once

#include <cstdint>

namespace mallat::dwt {

// A half-open rectangle [x0, x1) x [y0, y1) in some coordinate system.
struct Rect {
  int64_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  int64_t width() const { return x1 - x0; }
  int64_t height() const { return y1 - y0; }
  bool empty() const { return x1 <= x0 || y1 <= y0; }
  friend bool operator==(const Rect&, const Rect&) = default;
};

// Subband orientation (B.5): LL, HL (horizontally high-pass), LH, HH.
enum class Band { kLL = 0, kHL = 1, kLH = 2, kHH = 3 };

// ceil(a / 2^n) and floor(a / 2^n) for any sign of a (Annex B uses both).
int64_t ceil_div_pow2(int64_t a, int n);
int64_t floor_div_pow2(int64_t a, int n);

// B-14: the tile-component rectangle at resolution r of a decomposition with
// `levels` levels (r = 0 is the lowest, r = levels the full tile-component).
Rect resolution_rect(const Rect& tile_component, int levels, int r);

// B-15: subband `band` of decomposition level nb (1 = finest), in that
// subband's own coordinates. kLL is only meaningful at the coarsest level.
Rect subband_rect(const Rect& tile_component, int nb, Band band);

// Where subband (nb, band) lies inside a plane holding the tile-component
// after a forward transform of `levels` levels, as an offset rectangle from
// the plane's top-left sample: the low-pass part of each level is packed
// first (left / top), its high-pass part after it. nb in 1..levels;
// Band::kLL only with nb == levels (or levels == 0, the whole plane).
Rect packed_subband_rect(const Rect& tile_component, int levels, int nb, Band band);

}  // namespace mallat::dwt
