// Planes for the DWT tests, shared by every backend's tests (tests/dwt and
// tests/dwt_cuda): random samples in a buffer whose rows are padded with a
// sentinel, so a backend that writes outside the plane or ignores the stride
// is caught; jobs over them; and the comparisons against the reference.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "common/plane_view.h"
#include "dwt/dwt.h"

namespace mallat::dwt::testing {

// Row lengths for the row kernels' tests: every length up to 300 (the
// vector loops' ends at both parities), and long rows.
inline std::vector<int64_t> row_lengths() {
  std::vector<int64_t> out;
  for (int64_t n = 1; n <= 300; ++n) out.push_back(n);
  for (int64_t n : {511, 512, 513, 1000, 1001, 4097, 15360, 15361}) out.push_back(n);
  return out;
}

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
  const T& at(int64_t x, int64_t y) const { return buffer[static_cast<size_t>(y * stride + x)]; }

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

// 5/3: the signed 16-bit range, like a 16-bit component after the DC shift,
// far from overflow through the lifting steps. 9/7: [-128, 128).
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

inline std::string describe(const PlaneJob& j) {
  return std::string(j.wavelet == Wavelet::k53 ? "5/3 " : "9/7 ") +
         (j.direction == Direction::kForward ? "forward " : "inverse ") + std::to_string(j.width()) + "x" +
         std::to_string(j.height()) + " at (" + std::to_string(j.x0) + "," + std::to_string(j.y0) + "), " +
         std::to_string(j.levels) + " levels";
}

// The largest magnitude among a plane's samples (not its padding).
template <typename T>
double max_abs(const PaddedPlane<T>& p) {
  double m = 0;
  for (int64_t y = 0; y < p.height; ++y)
    for (int64_t x = 0; x < p.width; ++x) m = std::max(m, std::fabs(static_cast<double>(p.at(x, y))));
  return m;
}

// What a backend's result may differ from the reference's by: nothing for
// 5/3; for 9/7, 1e-5 of the largest magnitude in the reference result. (No
// looser than either bound the CPU and CUDA tests had apart: 1e-5 of the
// largest input or result magnitude, and of max(1, largest result magnitude
// with the padding).)
template <typename T>
double reference_tolerance(const PaddedPlane<T>& reference_result) {
  if constexpr (std::is_same_v<T, int32_t>) return 0;
  else return 1e-5 * max_abs(reference_result);
}

// What a forward then inverse transform may differ from its input by:
// nothing for 5/3; for 9/7, 1e-4 of the input's largest magnitude.
template <typename T>
double round_trip_tolerance(const PaddedPlane<T>& input) {
  if constexpr (std::is_same_v<T, int32_t>) return 0;
  else return 1e-4 * max_abs(input);
}

// Every sample of `got` within `tolerance` of `want` (0: bit-exact) and the
// padding of `got` untouched; a failure names the first offending sample.
template <typename T>
::testing::AssertionResult agrees(const PaddedPlane<T>& got, const PaddedPlane<T>& want, double tolerance,
                                  const std::string& what) {
  if (got.width != want.width || got.height != want.height) {
    return ::testing::AssertionFailure() << what << ": plane sizes differ";
  }
  for (int64_t y = 0; y < got.height; ++y)
    for (int64_t x = 0; x < got.width; ++x) {
      const T g = got.at(x, y), w = want.at(x, y);
      const bool ok = std::is_same_v<T, int32_t>
                          ? g == w
                          : std::fabs(static_cast<double>(g) - static_cast<double>(w)) <= tolerance;
      if (!ok) {
        return ::testing::AssertionFailure() << what << ": sample (" << x << "," << y << ") is " << g
                                             << ", expected " << w << " (tolerance " << tolerance << ")";
      }
    }
  if (!got.padding_intact()) return ::testing::AssertionFailure() << what << ": wrote outside the plane";
  return ::testing::AssertionSuccess();
}

}  // namespace mallat::dwt::testing
