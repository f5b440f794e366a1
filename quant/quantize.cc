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

namespace {

// quantize_dead_zone's body, inlined into each instruction set's copy
// below, where the compiler runs its plain loops in that set's lanes (no
// fused multiply-adds: the energy's products and sums stay apart, as
// DeadZoneRule's order says).
[[gnu::always_inline]] inline QuantizationError quantize_region(PlaneView<const float> in, const DeadZoneRule& rule,
                                                                PlaneView<int32_t> out) {
  QuantizationError e;
  double total = 0;
  // Code-block rows are at most 1024 wide (A.6.1); wider regions go in pieces.
  constexpr int64_t kPiece = 1024;
  // A code-block's rows lie a whole band row apart, too far for the
  // hardware prefetcher: a row a few rows ahead is asked for while this one
  // runs, early enough for memory to answer.
  constexpr int64_t kAhead = 6;
  float scaled[kPiece];
  for (int64_t y = 0; y < in.height; ++y) {
    for (int64_t x0 = 0; x0 < in.width; x0 += kPiece) {
      const int64_t n = std::min(kPiece, in.width - x0);
      const float* src = in.row(y) + x0;
      int32_t* dst = out.row(y) + x0;
      if (y + kAhead < in.height) {
        const float* ahead = in.row(y + kAhead) + x0;
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

QuantizationError quantize_plain(PlaneView<const float> in, const DeadZoneRule& rule, PlaneView<int32_t> out) {
  return quantize_region(in, rule, out);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define MALLAT_QUANTIZE_AVX2 1
// Eight lanes a vector; -mfma is not asked for, so no product is fused.
[[gnu::target("avx2")]] QuantizationError quantize_avx2(PlaneView<const float> in, const DeadZoneRule& rule,
                                                        PlaneView<int32_t> out) {
  return quantize_region(in, rule, out);
}
#endif

}  // namespace

QuantizationError quantize_dead_zone(PlaneView<const float> in, double delta, int max_bitplanes,
                                     PlaneView<int32_t> out, int fraction_bits, QuantizeLoops loops) {
  const DeadZoneRule rule = dead_zone_rule(delta, max_bitplanes, fraction_bits);
#if defined(MALLAT_QUANTIZE_AVX2)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2 && loops == QuantizeLoops::kBest) return quantize_avx2(in, rule, out);
#else
  (void)loops;
#endif
  return quantize_plain(in, rule, out);
}

}  // namespace mallat::quant
