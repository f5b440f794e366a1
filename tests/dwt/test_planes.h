// Planes for the DWT tests: random samples in a buffer whose rows are padded
// with a sentinel, so a backend that writes outside the plane is caught.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "common/plane_view.h"
#include "dwt/dwt.h"

namespace mallat::dwt::testing {

template <typename T>
struct PaddedPlane {
  static constexpr int64_t kPad = 3;
  static constexpr T kSentinel = static_cast<T>(-12345);
  int64_t width, height, stride;
  std::vector<T> buffer;

  PaddedPlane(int64_t w, int64_t h)
      : width(w), height(h), stride(w + kPad),
        buffer(static_cast<size_t>(stride * h + kPad), kSentinel) {}

  PlaneView<T> view() { return PlaneView<T>{buffer.data(), width, height, stride}; }
  T& at(int64_t x, int64_t y) { return buffer[static_cast<size_t>(y * stride + x)]; }

  // Only the samples; the padding keeps its sentinel.
  std::vector<T> samples() const {
    std::vector<T> out;
    for (int64_t y = 0; y < height; ++y)
      for (int64_t x = 0; x < width; ++x) out.push_back(buffer[static_cast<size_t>(y * stride + x)]);
    return out;
  }
  bool padding_intact() const {
    for (int64_t i = 0; i < static_cast<int64_t>(buffer.size()); ++i) {
      const bool inside = i < stride * height && (i % stride) < width;
      if (!inside && buffer[static_cast<size_t>(i)] != kSentinel) return false;
    }
    return true;
  }
};

inline void fill_random(PaddedPlane<int32_t>& p, std::mt19937& rng, int32_t lo = -32768, int32_t hi = 32767) {
  std::uniform_int_distribution<int32_t> dist(lo, hi);
  for (int64_t y = 0; y < p.height; ++y)
    for (int64_t x = 0; x < p.width; ++x) p.at(x, y) = dist(rng);
}

inline void fill_random(PaddedPlane<float>& p, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-128.0f, 128.0f);
  for (int64_t y = 0; y < p.height; ++y)
    for (int64_t x = 0; x < p.width; ++x) p.at(x, y) = dist(rng);
}

inline PlaneJob make_job(Wavelet wavelet, Direction dir, int levels, int64_t x0, int64_t y0) {
  PlaneJob j;
  j.wavelet = wavelet;
  j.direction = dir;
  j.levels = levels;
  j.x0 = x0;
  j.y0 = y0;
  return j;
}

inline PlaneJob job53(PlaneView<int32_t> v, Direction dir, int levels, int64_t x0, int64_t y0) {
  PlaneJob j = make_job(Wavelet::k53, dir, levels, x0, y0);
  j.samples53 = v;
  return j;
}

inline PlaneJob job97(PlaneView<float> v, Direction dir, int levels, int64_t x0, int64_t y0) {
  PlaneJob j = make_job(Wavelet::k97, dir, levels, x0, y0);
  j.samples97 = v;
  return j;
}

}  // namespace mallat::dwt::testing
