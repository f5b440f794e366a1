#include "quant/step_size.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace mallat::quant {

int log2_subband_gain(int orientation) {
  switch (orientation) {
    case 0: return 0;  // LL
    case 1:            // HL
    case 2: return 1;  // LH
    default: return 2; // HH
  }
}

int subband_count(int levels) { return 3 * levels + 1; }

int subband_orientation(int index) { return index == 0 ? 0 : 1 + (index - 1) % 3; }

int subband_level(int index, int levels) { return index == 0 ? levels : levels - (index - 1) / 3; }

std::vector<StepSize> reversible_step_sizes(int precision, int levels) {
  std::vector<StepSize> steps(subband_count(levels));
  for (int i = 0; i < subband_count(levels); ++i) {
    steps[i].exponent = precision + log2_subband_gain(subband_orientation(i));
  }
  return steps;
}

double step_value(const StepSize& step, int dynamic_range) {
  return std::ldexp(1.0 + step.mantissa / 2048.0, dynamic_range - step.exponent);
}

bool step_for_value(double delta, int dynamic_range, StepSize* out) {
  if (!(delta > 0) || !std::isfinite(delta)) return false;
  int e = 0;
  const double fraction = std::frexp(delta, &e);  // delta = fraction * 2^e, fraction in [0.5, 1)
  // delta = 2^(e-1) * (2 * fraction); 2 * fraction in [1, 2) carries the mantissa.
  const int mantissa = static_cast<int>(std::floor((2.0 * fraction - 1.0) * 2048.0));
  const int exponent = dynamic_range - (e - 1);
  if (exponent < 0 || exponent > 31) return false;
  out->exponent = exponent;
  out->mantissa = mantissa;
  return true;
}

bool expounded_step_sizes(int precision, std::span<const double> norms, double base_step,
                          std::vector<StepSize>* out) {
  out->assign(norms.size(), {});
  for (size_t i = 0; i < norms.size(); ++i) {
    const int rb = precision + log2_subband_gain(subband_orientation(static_cast<int>(i)));
    if (!step_for_value(base_step / norms[i], rb, &(*out)[i])) return false;
  }
  return true;
}

StepSize derived_step_size(const StepSize& ll, int levels, int index) {
  return {ll.exponent - levels + subband_level(index, levels), ll.mantissa};
}

std::vector<StepSize> derived_step_sizes(const StepSize& ll, int levels) {
  std::vector<StepSize> steps(subband_count(levels));
  for (int i = 0; i < subband_count(levels); ++i) steps[i] = derived_step_size(ll, levels, i);
  return steps;
}

std::vector<StepSize> complete_step_sizes(std::span<const StepSize> signalled, bool no_quantisation, int levels) {
  std::vector<StepSize> steps(signalled.begin(), signalled.end());
  for (int i = static_cast<int>(steps.size()); i < subband_count(levels); ++i) {
    StepSize s;
    if (i > 3) {
      // The same orientation one level coarser: i - 3 in the signalling order.
      s = steps[i - 3];
      if (!no_quantisation) s.exponent -= 1;
    } else {
      // The coarsest level from LL: n_b = levels gives epsilon_0 under E-5.
      s = steps[0];
      if (no_quantisation) s.exponent += log2_subband_gain(subband_orientation(i));
    }
    s.exponent = std::max(s.exponent, 0);
    steps.push_back(s);
  }
  return steps;
}

Result<StepSize> subband_step_size(std::span<const StepSize> signalled, bool derived, int levels, int index) {
  if (derived) {
    if (signalled.empty()) return corrupt_data("QCD/QCC without a step size");
    return derived_step_size(signalled[0], levels, index);
  }
  if (index < 0 || index >= static_cast<int>(signalled.size())) {
    return corrupt_data("quantisation has " + std::to_string(signalled.size()) + " step sizes, subband " +
                        std::to_string(index) + " needs more");
  }
  return signalled[index];
}

}  // namespace mallat::quant
