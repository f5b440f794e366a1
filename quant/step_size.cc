#include "quant/step_size.h"

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

std::vector<StepSize> reversible_step_sizes(int precision, int levels) {
  std::vector<StepSize> steps(subband_count(levels));
  for (int i = 0; i < subband_count(levels); ++i) {
    steps[i].exponent = precision + log2_subband_gain(subband_orientation(i));
  }
  return steps;
}

}  // namespace mallat::quant
