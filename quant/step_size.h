// Quantisation step sizes (Annex E). A step size is signalled as an exponent
// and an 11-bit mantissa (E-3); for reversible coding only the exponent is
// signalled and it sets the number of magnitude bit-planes (E-2).
#pragma once

#include <span>
#include <vector>

#include "common/status.h"

namespace mallat::quant {

// E.1: Delta_b = 2^(R_b - exponent) * (1 + mantissa / 2^11).
struct StepSize {
  int exponent = 0;   // epsilon_b, 0..31
  int mantissa = 0;   // mu_b, 0..2047
  friend bool operator==(const StepSize&, const StepSize&) = default;
};

// Table E.1: log2 of the nominal gain of a subband; orientation as
// 0 = LL, 1 = HL, 2 = LH, 3 = HH (the order of dwt::Band).
int log2_subband_gain(int orientation);

// Number of subbands of a decomposition with `levels` levels: 3 * levels + 1,
// in the signalling order of A.6.4 (LL, then HL, LH, HH from the coarsest
// level to the finest).
int subband_count(int levels);

// Orientation (0..3) of subband `index` in that signalling order.
int subband_orientation(int index);

// Decomposition level n_b (1 = finest) of subband `index` in that order
// (the LL band: `levels`).
int subband_level(int index, int levels);

// Position of the subband of orientation `orientation` added at resolution
// r (r = 0: the LL band) in that signalling order (A.6.4).
inline int subband_step_index(int r, int orientation) { return r == 0 ? 0 : 3 * (r - 1) + orientation; }

// Reversible step sizes (no quantisation): epsilon_b = precision + log2 gain_b,
// mantissa 0 — enough bit-planes for the 5/3's integer growth, as E.1.1
// requires and as other encoders signal it.
std::vector<StepSize> reversible_step_sizes(int precision, int levels);

// E-3: the step size Delta_b that (exponent, mantissa) signal for a subband
// of nominal dynamic range R_b = precision + log2 gain_b.
double step_value(const StepSize& step, int dynamic_range);

// The signalled step nearest below-or-at `delta` (> 0) for dynamic range R_b:
// exponent = R_b - floor(log2 delta), mantissa = the 11-bit fraction. Fails
// (returns false) when the exponent falls outside 0..31.
bool step_for_value(double delta, int dynamic_range, StepSize* out);

// Scalar expounded (A.6.4): one step per subband, Delta_b = base_step / norm_b,
// where norms are the subbands' synthesis L2 norms in signalling order, so
// one step in any subband costs about `base_step` in the image. Returns false
// when a step does not fit the signalling (see step_for_value).
bool expounded_step_sizes(int precision, std::span<const double> norms, double base_step,
                          std::vector<StepSize>* out);

// Steps for the subbands that a QCD/QCC without derivation leaves out (it
// lists fewer than 3 * levels + 1; A.6.4 forbids it, encoders write it): a
// missing subband takes the step of its orientation one level coarser, with
// the exponent one lower per level finer as E-5 derives them, or the same
// exponent without quantisation (epsilon_b = R_I + log2 gain_b on every
// level); the coarsest level's from the LL step (E-5; + log2 gain_b without
// quantisation). Exponents stop at 0. `signalled` must not be empty.
std::vector<StepSize> complete_step_sizes(std::span<const StepSize> signalled, bool no_quantisation, int levels);

// Scalar derived (E-5): only the LL step is signalled; subband `index` (in
// the signalling order) uses epsilon_b = epsilon_0 - N_L + n_b and
// mu_b = mu_0, n_b its level (subband_level). The one place E-5 is written:
// encoder and decoder both reach it through subband_step_size.
StepSize derived_step_size(const StepSize& ll, int levels, int index);

// derived_step_size for every subband, in signalling order.
std::vector<StepSize> derived_step_sizes(const StepSize& ll, int levels);

// The step size of subband `index` (signalling order, A.6.4) of a component
// with `levels` levels, from the signalled ones (QCD/QCC's SPqcd): with
// `derived`, the one E-5 derives from the first; otherwise signalled[index]
// (for no quantisation only its exponent means anything). Fails when the
// signalled steps are too few.
Result<StepSize> subband_step_size(std::span<const StepSize> signalled, bool derived, int levels, int index);

// E-2: the maximum number of magnitude bit-planes M_b of a subband.
inline int magnitude_bitplanes(int guard_bits, int exponent) { return guard_bits + exponent - 1; }

}  // namespace mallat::quant
