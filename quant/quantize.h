// Dead-zone scalar quantisation (E.1.1): q = sign(y) * floor(|y| / Delta_b).
// The inverse (E.1.1.2) is quant/dequantize.h; the encoder's side is here
// so the rate allocator can see what it costs.
#pragma once

#include <cstdint>

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

// Quantises `in` into `out` (same size) as two's-complement integers:
// the index q = floor(|y| / Delta) of E.1.1, its magnitude kept below
// 2^max_bitplanes (M_b of E-2), with `fraction_bits` F bits of |y| / Delta's
// fraction below it (F = 0: the indices themselves). Tier-1 codes the index
// bits of such values and measures each pass against the finer ones
// (entropy::encode_code_block). max_bitplanes + F <= 31. `out` may be
// `in`'s own storage (the encoder's tile planes turn from floats into
// indices in place): each index is written after its coefficient is read.
QuantizationError quantize_dead_zone(PlaneView<const float> in, double delta, int max_bitplanes,
                                     PlaneView<int32_t> out, int fraction_bits = 0);

}  // namespace mallat::quant
