#include "codec/decoder/dequantize.h"

#include <cmath>
#include <cstdlib>
#include <string>

#include "quant/step_size.h"

namespace mallat::codec {

Result<quant::StepSize> band_step_size(const Quantization& q, int levels, int r, dwt::Band band) {
  if (q.style == QuantizationStyle::kScalarDerived) {
    if (q.steps.empty()) return corrupt_data("QCD/QCC without a step size");
    // E-5: epsilon_b = epsilon_0 - NL + nb, mu_b = mu_0; nb = NL for the LL
    // band, NL - r + 1 for the bands added at resolution r.
    const int nb = r == 0 ? levels : levels - r + 1;
    return quant::StepSize{q.steps[0].exponent - levels + nb, q.steps[0].mantissa};
  }
  const int idx = quant::subband_step_index(r, static_cast<int>(band));
  if (idx >= static_cast<int>(q.steps.size())) {
    return corrupt_data("quantisation has " + std::to_string(q.steps.size()) +
                        " step sizes, subband " + std::to_string(idx) + " needs more");
  }
  return q.steps[idx];
}

float step_size(const quant::StepSize& step, int precision, dwt::Band band) {
  const int rb = precision + quant::log2_subband_gain(static_cast<int>(band));
  return static_cast<float>((1.0 + step.mantissa / 2048.0) * std::pow(2.0, rb - step.exponent));
}

namespace {

// The magnitude and the plane it is known to after H.1's ROI shift.
struct Known {
  uint32_t magnitude;
  int plane;
};

inline Known after_roi(uint32_t magnitude, int plane, int roi_shift) {
  if (roi_shift > 0 && roi_shift < 32 && magnitude >= (uint32_t{1} << roi_shift)) {
    return {magnitude >> roi_shift, plane > roi_shift ? plane - roi_shift : 0};
  }
  return {magnitude, plane};
}

}  // namespace

void reconstruct_reversible(PlaneView<int32_t> block, PlaneView<const uint8_t> known_plane,
                            const BlockReconstruction& how) {
  if (known_plane.empty() && how.roi_shift == 0) return;  // complete: the integers are exact
  for (int64_t y = 0; y < block.height; ++y) {
    int32_t* row = block.row(y);
    const uint8_t* kp = known_plane.empty() ? nullptr : known_plane.row(y);
    for (int64_t x = 0; x < block.width; ++x) {
      const int32_t v = row[x];
      if (v == 0) continue;
      const Known k = after_roi(static_cast<uint32_t>(std::abs(v)), kp ? kp[x] : 0, how.roi_shift);
      const uint32_t m = k.plane > 0 ? k.magnitude + (uint32_t{1} << (k.plane - 1)) : k.magnitude;
      row[x] = v < 0 ? -static_cast<int32_t>(m) : static_cast<int32_t>(m);
    }
  }
}

void reconstruct_irreversible(PlaneView<const int32_t> block, PlaneView<const uint8_t> known_plane,
                              const BlockReconstruction& how, PlaneView<float> out) {
  const float half_step = 0.5f * how.step;
  if (known_plane.empty() && how.roi_shift == 0) {
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
    const uint8_t* kp = known_plane.empty() ? nullptr : known_plane.row(y);
    float* dst = out.row(y);
    for (int64_t x = 0; x < block.width; ++x) {
      const int32_t v = row[x];
      if (v == 0) {
        dst[x] = 0.0f;
        continue;
      }
      const Known k = after_roi(static_cast<uint32_t>(std::abs(v)), kp ? kp[x] : 0, how.roi_shift);
      const int64_t d = 2 * int64_t{k.magnitude} + (int64_t{1} << k.plane);
      dst[x] = static_cast<float>(v < 0 ? -d : d) * half_step;
    }
  }
}

}  // namespace mallat::codec
