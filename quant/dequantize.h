// Annex E.1 (and H.1 for region of interest): from the integers Tier-1
// decodes to the values the inverse wavelet transform takes. Reversible
// components keep integers; irreversible ones become floats scaled by the
// subband's step size.
#pragma once

#include <cstdint>

#include "common/plane_view.h"
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

// How far a code-block's coding passes reached, as its block decoder says
// (entropy::DecodedCodeBlockInfo, in plain values): the lowest bit-plane a
// pass reached, and whether the last pass was a significance propagation
// pass. The default, plane 0 and no: every sample known to plane 0.
struct KnownPlanes {
  int lowest_plane = 0;
  bool ended_in_significance_pass = false;
};

// E.1.1.2: the bit-plane down to which a non-zero decoded magnitude is
// known. Every sample is known to the lowest plane a pass reached, except
// when the last pass was a significance propagation pass: then the samples
// significant before it have their refinement bit of that plane still to
// come. Those have a magnitude of at least 2^(lowest + 1); a sample that
// became significant in that last pass has exactly 2^lowest (a block
// decoder sets a magnitude to 2^p when its sample becomes significant at
// plane p and only adds lower bits later). So the value tells the two
// apart, and the decoder need not hand over a plane of them: this equals
// entropy::decode_code_block's known_plane for every non-zero sample
// (tests/quant/dequantize_test.cc checks it).
inline int known_plane(uint32_t magnitude, const KnownPlanes& known) {
  const int lowest = known.lowest_plane;
  const bool behind = known.ended_in_significance_pass && lowest + 1 < 32 &&
                      magnitude >= (uint32_t{1} << (lowest + 1));
  return lowest + (behind ? 1 : 0);
}

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
