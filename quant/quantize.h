// Dead-zone scalar quantisation (E.1.1): q = sign(y) * floor(|y| / Delta_b).
// The decoder's inverse (E.1.1.2) belongs to the decoder; the encoder's side
// is here so the rate allocator can see what it costs.
#pragma once

#include <cstdint>

#include "common/plane_view.h"

namespace mallat::quant {

// What quantising a region left behind, for the rate allocator.
struct QuantizationError {
  // Sum over the region of (|y|/Delta - r)^2, with r the reconstruction a
  // decoder makes from all bit-planes: 0 for q = 0, |q| + 1/2 otherwise
  // (E.1.1.2 with r = 1/2), in units of Delta^2.
  double residual = 0.0;
  // Samples whose |q| reached 2^max_bitplanes and was clipped to fit.
  int64_t clipped = 0;
};

// Quantises `in` into `out` (same size) as two's-complement integers whose
// magnitudes stay below 2^max_bitplanes (M_b of E-2).
QuantizationError quantize_dead_zone(PlaneView<const float> in, double delta, int max_bitplanes,
                                     PlaneView<int32_t> out);

}  // namespace mallat::quant
