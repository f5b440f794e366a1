#include "quant/dequantize.h"

namespace mallat::quant {

float step_size(const StepSize& step, int precision, int orientation) {
  // step_value is exact in double (a 12-bit mantissa times a power of two).
  return static_cast<float>(step_value(step, precision + log2_subband_gain(orientation)));
}

namespace {

// Every sample known to plane 0: the last pass was a cleanup pass or a
// refinement pass of plane 0.
bool complete(const KnownPlanes& known) { return known.lowest_plane == 0 && !known.ended_in_significance_pass; }

}  // namespace

void reconstruct_reversible(PlaneView<int32_t> block, const KnownPlanes& known, const BlockReconstruction& how) {
  if (complete(known) && how.roi_shift == 0) return;  // the integers are exact
  for (int64_t y = 0; y < block.height; ++y) {
    int32_t* row = block.row(y);
    for (int64_t x = 0; x < block.width; ++x) row[x] = reconstructed_reversible(row[x], known, how.roi_shift);
  }
}

void reconstruct_irreversible(PlaneView<const int32_t> block, const KnownPlanes& known,
                              const BlockReconstruction& how, PlaneView<float> out) {
  const float half_step = 0.5f * how.step;
  if (complete(known) && how.roi_shift == 0) {
    // Every sample known to plane 0: 2|q| + 1 half-steps.
    for (int64_t y = 0; y < block.height; ++y) {
      const int32_t* row = block.row(y);
      float* dst = out.row(y);
      for (int64_t x = 0; x < block.width; ++x) {
        const int32_t v = row[x];
        const int64_t d = v == 0 ? 0 : v > 0 ? 2 * int64_t{v} + 1 : 2 * int64_t{v} - 1;
        dst[x] = static_cast<float>(d) * half_step;
      }
    }
    return;
  }
  for (int64_t y = 0; y < block.height; ++y) {
    const int32_t* row = block.row(y);
    float* dst = out.row(y);
    for (int64_t x = 0; x < block.width; ++x)
      dst[x] = reconstructed_irreversible(row[x], known, how.roi_shift, half_step);
  }
}

}  // namespace mallat::quant
