#include "codec/encoder/synthesis_norms.h"

#include <cmath>

#include "dwt/geometry.h"
#include "quant/step_size.h"

namespace mallat::codec {

namespace {

// Levels measured directly; deeper ones grow by the ratio of the last two
// (the iterated low-pass filter converges, so the ratio does too).
constexpr int kMeasuredLevels = 10;

// The 1-D synthesis norm of an impulse in the low-pass (high = false) or
// high-pass band of decomposition level nb, on a line long enough that the
// response touches no edge.
Result<double> line_norm(dwt::Backend& backend, dwt::Wavelet wavelet, int nb, bool high) {
  const int64_t length = int64_t{32} << nb;
  const dwt::Rect line{0, 0, length, 1};
  const dwt::Rect band = dwt::packed_subband_rect(line, nb, nb, high ? dwt::Band::kHL : dwt::Band::kLL);
  const int64_t at = band.x0 + band.width() / 2;
  std::vector<int32_t> ints;
  std::vector<float> floats;
  dwt::PlaneJob job;
  job.wavelet = wavelet;
  job.direction = dwt::Direction::kInverse;
  job.levels = nb;
  if (wavelet == dwt::Wavelet::k53) {
    // The 5/3 is integer: scale the impulse up so rounding does not matter.
    constexpr int kScale = 1 << 20;
    ints.assign(length, 0);
    ints[at] = kScale;
    job.samples53 = PlaneView<int32_t>{ints.data(), length, 1, length};
    MALLAT_RETURN_IF_ERROR(backend.run(job));
    double sum = 0;
    for (int32_t v : ints) sum += static_cast<double>(v) * v;
    return std::sqrt(sum) / kScale;
  }
  floats.assign(length, 0.0f);
  floats[at] = 1.0f;
  job.samples97 = PlaneView<float>{floats.data(), length, 1, length};
  MALLAT_RETURN_IF_ERROR(backend.run(job));
  double sum = 0;
  for (float v : floats) sum += static_cast<double>(v) * v;
  return std::sqrt(sum);
}

}  // namespace

Result<std::vector<double>> subband_synthesis_norms(dwt::Wavelet wavelet, int levels) {
  MALLAT_ASSIGN_OR_RETURN(auto backend, dwt::make_backend(dwt::BackendKind::kReference, 1));
  // low[nb], high[nb]: 1-D norms for nb = 0..levels (low[0] = 1: no transform).
  std::vector<double> low(levels + 1, 1.0), high(levels + 1, 1.0);
  for (int nb = 1; nb <= levels; ++nb) {
    if (nb <= kMeasuredLevels) {
      MALLAT_ASSIGN_OR_RETURN(low[nb], line_norm(*backend, wavelet, nb, false));
      MALLAT_ASSIGN_OR_RETURN(high[nb], line_norm(*backend, wavelet, nb, true));
    } else {
      low[nb] = low[nb - 1] * (low[nb - 1] / low[nb - 2]);
      high[nb] = high[nb - 1] * (high[nb - 1] / high[nb - 2]);
    }
  }
  std::vector<double> norms(quant::subband_count(levels));
  for (int i = 0; i < quant::subband_count(levels); ++i) {
    const int nb = quant::subband_level(i, levels);
    switch (quant::subband_orientation(i)) {
      case 0: norms[i] = low[nb] * low[nb]; break;    // LL
      case 1:                                         // HL: high across, low down
      case 2: norms[i] = high[nb] * low[nb]; break;   // LH: the transpose
      default: norms[i] = high[nb] * high[nb]; break; // HH
    }
  }
  return norms;
}

}  // namespace mallat::codec
