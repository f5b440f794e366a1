// Annex E.1 (and H.1 for region of interest): from the integers Tier-1
// decodes to the values the inverse wavelet transform takes. Reversible
// components keep integers; irreversible ones become floats scaled by the
// subband's step size.
#pragma once

#include <cstdint>

#include "common/plane_view.h"
#include "quant/reconstruction_rules.h"
#include "quant/step_size.h"

namespace mallat::quant {

// E-3: Delta_b = 2^(R_b - epsilon_b) (1 + mu_b / 2^11) with R_b = precision
// + log2 gain_b (Table E.1), orientation as log2_subband_gain takes it:
// step_value, in single precision as OpenJPEG computes it, so that
// reconstructed values agree with its decoder.
float step_size(const StepSize& step, int precision, int orientation);

// How one code-block's decoded integers become coefficients.
struct BlockReconstruction {
  // H.1: max-shift. Decoded magnitudes >= 2^roi_shift belong to the region
  // and are shifted down by roi_shift; 0 = no region of interest.
  int roi_shift = 0;
  float step = 1.0f;  // Delta_b; irreversible only
};

// E.1.1.2: a non-zero magnitude known down to bit-plane p (known_plane) is
// reconstructed at the middle of its interval, in units of half a
// quantisation step: 2 |q| + 2^p (OpenJPEG's decoder keeps exactly this, one
// fractional bit).
//
// Reversible: the integer part of half of it, in place: |q| + 2^(p-1) for
// p > 0, |q| for p = 0, so a complete block is returned unchanged.
void reconstruct_reversible(PlaneView<int32_t> block, const KnownPlanes& known, const BlockReconstruction& how);

// Irreversible (E-6 with r = 1/2): (2 |q| + 2^p) * Delta_b / 2, with q's
// sign. `out` may be `block`'s own storage (the decoder's tile planes turn
// from integers into floats in place): each sample is read before its place
// is written.
void reconstruct_irreversible(PlaneView<const int32_t> block, const KnownPlanes& known,
                              const BlockReconstruction& how, PlaneView<float> out);

}  // namespace mallat::quant
