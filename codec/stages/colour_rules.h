// Annex G's rules per sample, for the host's loops
// (component_transform.cc, tile_input.cc, tile_output.cc) and the device runner's kernels
// (codec/stages/cuda/) alike: one rule in one place, so that CI's CPU tests
// check what the GPU runs.
#pragma once

#include <cmath>
#include <cstdint>

#include "common/host_device.h"

namespace mallat::codec {

// G.1.2: unsigned samples are shifted by -2^(precision-1); signed ones are not.
MALLAT_HD inline int32_t dc_shift_of(int precision, bool is_signed) {
  return is_signed ? 0 : int32_t{1} << (precision - 1);
}

// G.2 (Equation G-5): the forward RCT of one sample's (I0, I1, I2). Floor
// division by 4 of a possibly negative sum is an arithmetic shift.
MALLAT_HD inline void rct_forward_sample(int32_t& c0, int32_t& c1, int32_t& c2) {
  const int32_t r = c0, g = c1, b = c2;
  c0 = (r + 2 * g + b) >> 2;  // Y0 = floor((I0 + 2 I1 + I2) / 4)
  c1 = b - g;                 // Y1 = I2 - I1
  c2 = r - g;                 // Y2 = I0 - I1
}

// G.3 (Equation G-9): the forward ICT of one sample's (I0, I1, I2), in
// single precision, each sum from left to right without fused
// multiply-adds (the host's x86-64 code has none here; the device runner's
// kernels are built with -fmad=false), so that both give the same floats.
MALLAT_HD inline void ict_forward_sample(float& c0, float& c1, float& c2) {
  const float r = c0, g = c1, b = c2;
  c0 = 0.299f * r + 0.587f * g + 0.114f * b;
  c1 = -0.16875f * r - 0.33126f * g + 0.5f * b;
  c2 = 0.5f * r - 0.41869f * g - 0.08131f * b;
}

// G.2's inverse of one sample (G-7): rct_inverse's, and the output stage's
// where it runs with the DC shift in one pass (tile_output.cc).
MALLAT_HD inline void rct_inverse_sample(int32_t y0, int32_t y1, int32_t y2, int32_t& i0, int32_t& i1, int32_t& i2) {
  const int32_t g = y0 - ((y1 + y2) >> 2);  // I1 = Y0 - floor((Y2 + Y1) / 4)
  i0 = y2 + g;                              // I0 = Y2 + I1
  i1 = g;
  i2 = y1 + g;  // I2 = Y1 + I1
}

// G.3's inverse of one sample (G-10), in single precision, each sum from
// left to right without fused multiply-adds (as ict_forward_sample).
MALLAT_HD inline void ict_inverse_sample(float& c0, float& c1, float& c2) {
  const float y = c0, cb = c1, cr = c2;
  c0 = y + 1.402f * cr;
  c1 = y - 0.34413f * cb - 0.71414f * cr;
  c2 = y + 1.772f * cb;
}

// G.1.2 after decoding: a component's DC level shift and the range its
// samples are clamped to after the shift.
struct SampleRange {
  int32_t shift, lo, hi;
};

// Shift, then clamp. The addition wraps as the reference's int32 addition
// does in practice, so that even a corrupt stream's extreme values clamp to
// the same ends.
MALLAT_HD inline int32_t shift_and_clamp(int32_t x, const SampleRange& r) {
  const auto v = static_cast<int32_t>(static_cast<uint32_t>(x) + static_cast<uint32_t>(r.shift));
  return v < r.lo ? r.lo : v > r.hi ? r.hi : v;
}

// An irreversible sample of a component of at most 24 bits: clamped to the
// range less the shift (whose ends are exact floats, so that clamping
// before rounding gives what rounding first gives; NaN goes to the low
// end), rounded to nearest, ties to even (lrintf in the default mode), and
// shifted.
MALLAT_HD inline int32_t round_shift_and_clamp(float v, const SampleRange& r) {
  const auto lo = static_cast<float>(r.lo - r.shift), hi = static_cast<float>(r.hi - r.shift);
  v = v >= lo ? v : lo;
  v = v <= hi ? v : hi;
#if defined(__CUDA_ARCH__)
  return __float2int_rn(v) + r.shift;
#else
  return static_cast<int32_t>(std::lrintf(v)) + r.shift;
#endif
}

}  // namespace mallat::codec
