// Small images for the engine's tests: a few sizes and component counts,
// each a smooth pattern with texture, so every file codes many passes.
#pragma once

#include <cstdint>
#include <vector>

#include "common/image.h"

namespace mallat::testing {

inline Image engine_test_image(int width, int height, int components, uint32_t seed) {
  Image image = make_image(width, height, components, 8, false).value();
  uint32_t x = seed;
  for (int c = 0; c < components; ++c) {
    Component& comp = image.components[static_cast<size_t>(c)];
    for (int64_t y = 0; y < comp.height; ++y) {
      for (int64_t i = 0; i < comp.width; ++i) {
        x = x * 1664525u + 1013904223u;
        const int64_t v = (i * 3 + y * 2 + c * 40) % 200 + static_cast<int64_t>(x >> 27);
        comp.samples[static_cast<size_t>(y * comp.width + i)] = static_cast<int32_t>(v);
      }
    }
  }
  return image;
}

inline std::vector<Image> engine_test_images() {
  std::vector<Image> images;
  images.push_back(engine_test_image(96, 64, 3, 1));
  images.push_back(engine_test_image(130, 70, 1, 2));
  images.push_back(engine_test_image(64, 100, 3, 3));
  images.push_back(engine_test_image(75, 45, 3, 4));
  images.push_back(engine_test_image(50, 50, 1, 5));
  return images;
}

}  // namespace mallat::testing
