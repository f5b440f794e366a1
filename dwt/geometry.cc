// Annex B rectangles: B-14 (resolution), B-15 (subband) and the packed layout
// the DWT backends leave in place.
#include "dwt/geometry.h"

namespace mallat::dwt {

// Arithmetic right shifts floor for negative values too (C++20 defines >> on
// negative signed integers as arithmetic). Shifts of 63 or more give the sign.
int64_t floor_div_pow2(int64_t a, int n) {
  if (n <= 0) return a;
  if (n >= 63) return a < 0 ? -1 : 0;
  return a >> n;
}

// ceil(a / 2^n) = -floor(-a / 2^n); written with an added bias so that
// INT64_MIN does not overflow on negation.
int64_t ceil_div_pow2(int64_t a, int n) {
  if (n <= 0) return a;
  if (n >= 63) return a > 0 ? 1 : 0;
  const int64_t bias = (int64_t{1} << n) - 1;
  if (a > INT64_MAX - bias) return (a >> n) + ((a & bias) != 0 ? 1 : 0);
  return (a + bias) >> n;
}

// B-14: trx0 = ceil(tcx0 / 2^(NL - r)), likewise for the other corners.
Rect resolution_rect(const Rect& tc, int levels, int r) {
  const int n = levels - r;
  return Rect{ceil_div_pow2(tc.x0, n), ceil_div_pow2(tc.y0, n), ceil_div_pow2(tc.x1, n),
              ceil_div_pow2(tc.y1, n)};
}

// B-15: tbx0 = ceil((tcx0 - 2^(nb-1) * xob) / 2^nb), where xob = 1 for the
// horizontally high-pass bands (HL, HH) and yob = 1 for LH, HH.
Rect subband_rect(const Rect& tc, int nb, Band band) {
  if (nb <= 0) return tc;  // NL = 0: the only band is the tile-component
  const int64_t half = int64_t{1} << (nb - 1);
  const int64_t xo = (band == Band::kHL || band == Band::kHH) ? half : 0;
  const int64_t yo = (band == Band::kLH || band == Band::kHH) ? half : 0;
  return Rect{ceil_div_pow2(tc.x0 - xo, nb), ceil_div_pow2(tc.y0 - yo, nb),
              ceil_div_pow2(tc.x1 - xo, nb), ceil_div_pow2(tc.y1 - yo, nb)};
}

// Level nb transforms the top-left rectangle holding the resolution
// (ceil(tc / 2^(nb-1))); its nL low-pass columns come first, then nH
// high-pass ones, and the same for rows. nL is the width of the LL band of
// level nb, nH that of HL (B-15), so the packed rectangle follows from the
// band sizes alone.
Rect packed_subband_rect(const Rect& tc, int levels, int nb, Band band) {
  if (nb <= 0 || levels <= 0) {
    return Rect{0, 0, tc.width(), tc.height()};
  }
  const Rect low = subband_rect(tc, nb, Band::kLL);
  const Rect high = subband_rect(tc, nb, Band::kHH);
  const int64_t nl = low.width(), nh = high.width();
  const int64_t ml = low.height(), mh = high.height();
  switch (band) {
    case Band::kLL: return Rect{0, 0, nl, ml};
    case Band::kHL: return Rect{nl, 0, nl + nh, ml};
    case Band::kLH: return Rect{0, ml, nl, ml + mh};
    case Band::kHH: return Rect{nl, ml, nl + nh, ml + mh};
  }
  return Rect{};
}

}  // namespace mallat::dwt
