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
    for (int64_t x = 0; x < in.width; ++x) {
      const float scaled = std::fabs(src[x]) * inverse;
      float q = std::floor(scaled);
      if (q > flimit) {
        q = flimit;
        ++e.clipped;
      }
      const int32_t m = static_cast<int32_t>(q);
      dst[x] = src[x] < 0 ? -m : m;
    }
  }
  return e;
}

BitplaneDistortion bitplane_distortions(PlaneView<const float> in, double delta,
                                        PlaneView<const int32_t> quantized, int planes) {
  BitplaneDistortion d;
  d.significance.assign(static_cast<size_t>(planes), 0.0);
  d.refinement.assign(static_cast<size_t>(planes), 0.0);
  const double inverse = 1.0 / delta;
  for (int64_t y = 0; y < in.height; ++y) {
    const float* src = in.row(y);
    const int32_t* q = quantized.row(y);
    for (int64_t x = 0; x < in.width; ++x) {
      const double v = std::fabs(static_cast<double>(src[x])) * inverse;
      d.total += v * v;
      const uint32_t m = static_cast<uint32_t>(q[x] < 0 ? -static_cast<int64_t>(q[x]) : q[x]);
      if (m == 0) continue;
      int top = 0;   // highest set bit of m
      while ((m >> top) > 1) ++top;
      if (top >= planes) continue;   // cannot happen for a block coded with `planes` planes
      double before = v * v;         // error while m >> p is 0
      for (int p = top; p >= 0; --p) {
        const double r = (m >> p << p) + (p > 0 ? static_cast<double>(1u << (p - 1)) : 0.5);
        const double after = (v - r) * (v - r);
        (p == top ? d.significance : d.refinement)[p] += before - after;
        before = after;
      }
    }
  }
  return d;
}

}  // namespace mallat::quant
