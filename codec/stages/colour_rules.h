// Annex G's forward rules per sample, for the host's loops
// (component_transform.cc, tile_input.cc) and the device runner's kernels
// (codec/stages/cuda/) alike: one rule in one place, so that CI's CPU tests
// check what the GPU runs.
#pragma once

#include <cstdint>

#include "entropy/host_device.h"

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

}  // namespace mallat::codec
