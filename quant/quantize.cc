#include "quant/quantize.h"

#include <algorithm>
#include <cmath>

namespace mallat::quant {

DeadZoneRule dead_zone_rule(double delta, int max_bitplanes, int fraction_bits) {
  DeadZoneRule r;
  const int bits = max_bitplanes < 31 ? max_bitplanes : 31;
  r.inverse = static_cast<float>(1.0 / delta);
  r.ceiling = std::ldexp(1.0f, bits);
  r.below_ceiling = std::nextafter(r.ceiling, 0.0f);
  r.fine = std::ldexp(1.0f, fraction_bits);
  r.limit = static_cast<int32_t>((int64_t{1} << (bits + fraction_bits)) - 1);
  return r;
}

QuantizationError quantize_dead_zone(PlaneView<const float> in, double delta, int max_bitplanes,
                                     PlaneView<int32_t> out, int fraction_bits) {
  QuantizationError e;
  const DeadZoneRule rule = dead_zone_rule(delta, max_bitplanes, fraction_bits);
  double total = 0;
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
      // Plain loops the compiler vectorises: scale, quantise, sum of
      // squares in eight independent lanes (DeadZoneRule's order).
      for (int64_t x = 0; x < n; ++x) scaled[x] = dead_zone_scaled(rule, src[x]);
      int32_t clipped = 0;
      for (int64_t x = 0; x < n; ++x) {
        const int32_t over = dead_zone_over(rule, scaled[x]);
        dst[x] = dead_zone_value(rule, src[x], scaled[x], over);
        clipped -= over;
      }
      e.clipped += clipped;
      float lanes[8];
      dead_zone_energy_lanes(n, [&](int64_t x) { return scaled[x]; }, lanes);
      for (float l : lanes) total += l;
    }
  }
  e.energy = total;
  return e;
}

}  // namespace mallat::quant
