#include "quant/quantize.h"

#include <cmath>

namespace mallat::quant {

QuantizationError quantize_dead_zone(PlaneView<const float> in, double delta, int max_bitplanes,
                                     PlaneView<int32_t> out) {
  QuantizationError e;
  const float inverse = static_cast<float>(1.0 / delta);
  const int64_t limit = max_bitplanes >= 31 ? INT32_MAX : (int64_t{1} << max_bitplanes) - 1;
  const float flimit = static_cast<float>(limit);
  for (int64_t y = 0; y < in.height; ++y) {
    const float* src = in.data + y * in.stride;
    int32_t* dst = out.data + y * out.stride;
    double residual = 0.0;
    for (int64_t x = 0; x < in.width; ++x) {
      const float scaled = std::fabs(src[x]) * inverse;
      float q = std::floor(scaled);
      if (q > flimit) {
        q = flimit;
        ++e.clipped;
      }
      const float r = q > 0 ? q + 0.5f : 0.0f;
      residual += static_cast<double>((scaled - r) * (scaled - r));
      const int32_t m = static_cast<int32_t>(q);
      dst[x] = src[x] < 0 ? -m : m;
    }
    e.residual += residual;
  }
  return e;
}

}  // namespace mallat::quant
