// A photo-like test image, smooth, textured and noisy, so that its
// code-blocks code many passes (the hybrid block coders' file tests).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "common/image.h"

namespace mallat::testing {

inline Image textured_image(int64_t w, int64_t h, int n) {
  Image image = make_image(w, h, n, 8, false).value();
  uint32_t noise = 12345;
  for (int c = 0; c < n; ++c)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x) {
        noise = noise * 1664525u + 1013904223u;
        const double v = 128 + 80 * std::sin((x + 9 * c) / 19.0) * std::cos(y / 13.0) + ((x / 8 + y / 8) % 2 ? 20 : 0) +
                         static_cast<double>(noise >> 28);
        image.components[c].samples[y * w + x] = static_cast<int32_t>(std::clamp(v, 0.0, 255.0));
      }
  return image;
}

}  // namespace mallat::testing
