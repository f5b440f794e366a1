// Generated test images: smooth gradients plus noise, so every bit-plane and
// every subband carries data, of any size, component count, depth and sign.
#pragma once

#include <algorithm>
#include <cmath>
#include <random>

#include "common/image.h"

namespace mallat::testing {

inline Image generated_image(int64_t width, int64_t height, int components, int precision,
                             bool is_signed, uint32_t seed = 1) {
  Image image = make_image(width, height, components, precision, is_signed).value();
  std::mt19937 rng(seed);
  for (int c = 0; c < components; ++c) {
    Component& comp = image.components[c];
    const int64_t lo = comp.min_value(), hi = comp.max_value();
    const double range = static_cast<double>(hi - lo);
    std::uniform_real_distribution<double> noise(-0.05, 0.05);
    for (int64_t y = 0; y < height; ++y) {
      for (int64_t x = 0; x < width; ++x) {
        double t = (static_cast<double>(x) / std::max<int64_t>(width, 2) +
                    static_cast<double>(y + c * 7) / std::max<int64_t>(height, 2)) / 2.0;
        double v = lo + range * std::clamp(t + noise(rng), 0.0, 1.0);
        comp.samples[y * width + x] = static_cast<int32_t>(std::llround(v));
      }
    }
  }
  image.color_space = components >= 3 ? ColorSpace::kRgb : ColorSpace::kGray;
  return image;
}

}  // namespace mallat::testing
