// Annex G's rules per sample, for the host's loops
// (component_transform.cc, tile_input.cc, tile_output.cc) and the device runner's kernels
// (codec/stages/cuda/) alike: one rule in one place, so that CI's CPU tests
// check what the GPU runs.
#pragma once

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

}  // namespace mallat::codec
