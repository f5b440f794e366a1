// Dead-zone scalar quantisation (E.1.1): q = sign(y) * floor(|y| / Delta_b).
// The inverse (E.1.1.2) is quant/dequantize.h; the encoder's side is here
// so the rate allocator can see what it costs.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "common/host_device.h"
#include "common/plane_view.h"

namespace mallat::quant {

// What quantising a region gives the rate allocator.
struct QuantizationError {
  // Samples whose |q| reached 2^max_bitplanes and was clipped to fit.
  int64_t clipped = 0;
  // The squared error with nothing sent, in units of Delta^2: the sum of
  // (|y| / Delta)^2 over the region.
  double energy = 0;
};

// E.1.1 for one code-block as single-precision arithmetic, the rule that
// quantize_dead_zone's loops and the device runner's kernel
// (codec/stages/cuda/) both run, so that both give the same indices and
// energy bit for bit (the CUDA code is built with -fmad=false, as the host's
// x86-64 code has no FMA here).
struct DeadZoneRule {
  float inverse = 1;        // 1 / Delta, rounded to single precision
  float ceiling = 1;        // 2^bits: every float below it truncates below 2^bits
  float below_ceiling = 0;  // the float below `ceiling`
  float fine = 1;           // 2^F: scaling by it is exact, so the index bits are floor(|y| / Delta)
  int32_t limit = 0;        // 2^(bits + F) - 1, a clipped sample's value
};

// The rule for step `delta`, M_b = max_bitplanes (at most 31 used) and F =
// fraction_bits.
DeadZoneRule dead_zone_rule(double delta, int max_bitplanes, int fraction_bits);

// |y| / Delta.
MALLAT_HD inline float dead_zone_scaled(const DeadZoneRule& r, float y) { return fabsf(y) * r.inverse; }

// -1 (all ones) where |y| / Delta reached 2^bits, or is NaN: a clipped
// sample; else 0. Branch-free, so the host's loops vectorise (a
// coefficient's sign is a coin toss that a branch would mispredict).
MALLAT_HD inline int32_t dead_zone_over(const DeadZoneRule& r, float scaled) {
  return -static_cast<int32_t>(!(scaled < r.ceiling));
}

// The two's-complement value Tier-1 codes for coefficient y, scaled =
// dead_zone_scaled(y), over = dead_zone_over(scaled): its index floor(|y| /
// Delta) (truncation is the floor, as |y| / Delta >= 0) with F bits of
// fraction below it, or the limit where clipped; y's sign.
MALLAT_HD inline int32_t dead_zone_value(const DeadZoneRule& r, float y, float scaled, int32_t over) {
  const float kept = scaled < r.below_ceiling ? scaled : r.below_ceiling;  // std::min(below_ceiling, scaled)
  const int32_t m = (static_cast<int32_t>(kept * r.fine) & ~over) | (r.limit & over);
#if defined(__CUDA_ARCH__)
  const int32_t bits = __float_as_int(y);
#else
  int32_t bits;
  std::memcpy(&bits, &y, sizeof bits);
#endif
  const int32_t negative = bits >> 31;  // the sign bit, spread
  return (m ^ negative) - negative;
}

// One row's sum of (|y| / Delta)^2 as eight single-precision lanes, the
// order in which quantize_dead_zone adds them (lane k takes the samples x =
// k mod 8 of the row's whole groups of eight; the rest go to lane 0); the
// caller adds the lanes in order into its double total, row after row.
// `scaled(x)` gives sample x's |y| / Delta.
template <typename Scaled>
MALLAT_HD inline void dead_zone_energy_lanes(int64_t n, const Scaled& scaled, float lanes[8]) {
  for (int k = 0; k < 8; ++k) lanes[k] = 0;
  int64_t x = 0;
  for (; x + 8 <= n; x += 8)
    for (int k = 0; k < 8; ++k) lanes[k] += scaled(x + k) * scaled(x + k);
  for (; x < n; ++x) lanes[0] += scaled(x) * scaled(x);
}

// Which loops quantize_dead_zone runs: the widest vector lanes the CPU has
// (AVX2 on x86-64 where present), or the plain ones of the baseline
// instruction set that the others are tested against. Both give the same
// indices, clipped count and energy, bit for bit.
enum class QuantizeLoops { kBest, kPlain };

// Quantises `in` into `out` (same size) as two's-complement integers:
// the index q = floor(|y| / Delta) of E.1.1, its magnitude kept below
// 2^max_bitplanes (M_b of E-2), with `fraction_bits` F bits of |y| / Delta's
// fraction below it (F = 0: the indices themselves). Tier-1 codes the index
// bits of such values and measures each pass against the finer ones
// (entropy::encode_code_block). max_bitplanes + F <= 31. `out` may be
// `in`'s own storage (the encoder's tile planes turn from floats into
// indices in place): each index is written after its coefficient is read.
QuantizationError quantize_dead_zone(PlaneView<const float> in, double delta, int max_bitplanes,
                                     PlaneView<int32_t> out, int fraction_bits = 0,
                                     QuantizeLoops loops = QuantizeLoops::kBest);

}  // namespace mallat::quant
