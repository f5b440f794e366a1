// Dead-zone scalar quantisation (E.1.1): q = sign(y) * floor(|y| / Delta_b).
// The decoder's inverse (E.1.1.2) belongs to the decoder; the encoder's side
// is here so the rate allocator can see what it costs.
#pragma once

#include <cstdint>
#include <vector>

#include "common/plane_view.h"

namespace mallat::quant {

// How much each bit-plane lowers the squared error of a region, in units of
// Delta^2, measured against the unquantised values (what the image sees;
// Tier-1's own estimate is against |q|). A decoder that knows bit-planes p
// and above of a magnitude m reconstructs 0 while m >> p is 0, else the middle
// of the interval, (m >> p << p) + 2^p / 2 (E.1.1.2 with r = 1/2; at p = 0,
// m + 1/2). Per plane p = 0..planes-1, planes being the bit length of the
// largest magnitude: `significance[p]` from coefficients whose top bit is p
// (D.3.1/D.3.4 make them significant), `refinement[p]` from those already
// significant (D.3.3). `total`: the error with nothing known, the sum of
// (|y|/Delta)^2.
struct BitplaneDistortion {
  double total = 0;
  std::vector<double> significance, refinement;
};

// What quantising a region had to give up.
struct QuantizationError {
  // Samples whose |q| reached 2^max_bitplanes and was clipped to fit.
  int64_t clipped = 0;
};

// Quantises `in` into `out` (same size) as two's-complement integers whose
// magnitudes stay below 2^max_bitplanes (M_b of E-2). When `distortion` is
// not null, fills it for the quantised region in the same pass.
QuantizationError quantize_dead_zone(PlaneView<const float> in, double delta, int max_bitplanes,
                                     PlaneView<int32_t> out, BitplaneDistortion* distortion = nullptr);

}  // namespace mallat::quant
