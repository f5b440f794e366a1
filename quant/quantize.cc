#include "quant/quantize.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace mallat::quant {

namespace {

// Adds one coefficient of magnitude m (> 0) and scaled value v = |y|/Delta
// to the per-plane decreases: significance at its top plane, refinement below.
inline void add_planes(float v, uint32_t m, double* significance, double* refinement) {
  // (v - a)^2 - (v - b)^2 = (b - a)(2v - a - b): no cancellation of two
  // large squares, so single precision is enough per coefficient.
  const int top = std::bit_width(m) - 1;
  const float two_v = 2.0f * v;
  // Top plane: from 0 to the middle of [2^top, 2^(top+1)) (or m + 1/2 at top 0).
  float r = 1.5f * static_cast<float>(1u << top);
  significance[top] += static_cast<double>(r * (two_v - r));
  for (int p = top - 1; p >= 0; --p) {
    const float next = static_cast<float>(m >> p << p) + (p > 0 ? static_cast<float>(1u << (p - 1)) : 0.5f);
    refinement[p] += static_cast<double>((next - r) * (two_v - r - next));
    r = next;
  }
}

}  // namespace

QuantizationError quantize_dead_zone(PlaneView<const float> in, double delta, int max_bitplanes,
                                     PlaneView<int32_t> out, BitplaneDistortion* distortion) {
  QuantizationError e;
  const float inverse = static_cast<float>(1.0 / delta);
  const int bits = max_bitplanes < 31 ? max_bitplanes : 31;
  const float ceiling = std::ldexp(1.0f, bits);   // exact: every float below it truncates below 2^bits
  const int32_t limit = static_cast<int32_t>((int64_t{1} << bits) - 1);
  double significance[32] = {}, refinement[32] = {};
  double total = 0;
  uint32_t largest = 0;
  // Code-block rows are at most 1024 wide (A.6.1); wider regions go in pieces.
  constexpr int64_t kPiece = 1024;
  float scaled[kPiece];
  for (int64_t y = 0; y < in.height; ++y) {
    for (int64_t x0 = 0; x0 < in.width; x0 += kPiece) {
      const int64_t n = std::min(kPiece, in.width - x0);
      const float* src = in.row(y) + x0;
      int32_t* dst = out.row(y) + x0;
      // A code-block's rows lie a whole tile row apart, too far for the
      // hardware prefetcher: ask for the row after next while this one runs.
      if (y + 2 < in.height) {
        const float* ahead = in.row(y + 2) + x0;
        for (int64_t x = 0; x < n; x += 16) __builtin_prefetch(ahead + x);
      }
      // Plain loops the compiler vectorises: scale, quantise (|y| / Delta
      // >= 0, so truncation is the floor of E.1.1), sum of squares in
      // eight independent lanes.
      for (int64_t x = 0; x < n; ++x) scaled[x] = std::fabs(src[x]) * inverse;
      int32_t clipped = 0;
      for (int64_t x = 0; x < n; ++x) {
        const bool clip = !(scaled[x] < ceiling);
        clipped += clip;
        const int32_t m = clip ? limit : static_cast<int32_t>(scaled[x]);
        dst[x] = src[x] < 0 ? -m : m;
      }
      e.clipped += clipped;
      float lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      int64_t x = 0;
      for (; x + 8 <= n; x += 8)
        for (int k = 0; k < 8; ++k) lanes[k] += scaled[x + k] * scaled[x + k];
      for (; x < n; ++x) lanes[0] += scaled[x] * scaled[x];
      for (float l : lanes) total += l;
      if (!distortion) continue;
      for (x = 0; x < n; ++x) {
        if (dst[x] == 0) continue;
        const uint32_t m = static_cast<uint32_t>(dst[x] < 0 ? -static_cast<int64_t>(dst[x]) : dst[x]);
        largest |= m;
        add_planes(scaled[x], m, significance, refinement);
      }
    }
  }
  if (distortion) {
    const int planes = std::bit_width(largest);
    distortion->total = total;
    distortion->significance.assign(significance, significance + planes);
    distortion->refinement.assign(refinement, refinement + planes);
  }
  return e;
}

}  // namespace mallat::quant
