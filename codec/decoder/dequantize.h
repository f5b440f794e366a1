// Annex E.1 (and H.1 for region of interest): from the integers Tier-1
// decodes to the values the inverse wavelet transform takes. Reversible
// components keep integers; irreversible ones become floats scaled by the
// subband's step size.
#pragma once

#include <cstdint>

#include "codec/codestream/params.h"
#include "common/plane_view.h"
#include "common/status.h"
#include "dwt/geometry.h"

namespace mallat::codec {

// The step size signalled for subband `band` added at resolution r of a
// component with `levels` decomposition levels (A.6.4): the expounded one,
// or for scalar derived quantisation the one E-5 derives from the LL value
// (epsilon_b = epsilon_0 - NL + nb, mu_b = mu_0). For kNone only the
// exponent means anything.
Result<quant::StepSize> band_step_size(const Quantization& q, int levels, int r, dwt::Band band);

// E-3: Delta_b = 2^(R_b - epsilon_b) (1 + mu_b / 2^11) with R_b = precision
// + log2 gain_b (Table E.1). Single precision, as OpenJPEG computes it, so
// reconstructed values agree with its decoder.
float step_size(const quant::StepSize& step, int precision, dwt::Band band);

// How one code-block's decoded integers become coefficients.
struct BlockReconstruction {
  // H.1: max-shift. Decoded magnitudes >= 2^roi_shift belong to the region
  // and are shifted down by roi_shift; 0 = no region of interest.
  int roi_shift = 0;
  float step = 1.0f;  // Delta_b; irreversible only
};

// E.1.1.2: a non-zero magnitude known down to bit-plane p is reconstructed
// at the middle of its interval, in units of half a quantisation step:
// 2 |q| + 2^p (OpenJPEG's decoder keeps exactly this, one fractional bit).
// `known_plane` gives p per sample (entropy::decode_code_block fills it); an
// empty view means every sample is known to plane 0.
//
// Reversible: the integer part of half of it, in place: |q| + 2^(p-1) for
// p > 0, |q| for p = 0, so a complete block is returned unchanged.
void reconstruct_reversible(PlaneView<int32_t> block, PlaneView<const uint8_t> known_plane,
                            const BlockReconstruction& how);

// Irreversible (E-6 with r = 1/2): (2 |q| + 2^p) * Delta_b / 2, with q's sign.
void reconstruct_irreversible(PlaneView<const int32_t> block, PlaneView<const uint8_t> known_plane,
                              const BlockReconstruction& how, PlaneView<float> out);

}  // namespace mallat::codec
