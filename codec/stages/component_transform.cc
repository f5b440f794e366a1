#include "codec/stages/component_transform.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "codec/stages/colour_rules.h"

namespace mallat::codec {

void dc_level_shift_forward(std::span<int32_t> samples, int precision, bool is_signed) {
  if (is_signed) return;
  const int32_t shift = static_cast<int32_t>(1u << (precision - 1));
  for (int32_t& s : samples) s -= shift;
}

void dc_level_shift_inverse(std::span<int32_t> samples, int precision, bool is_signed) {
  if (is_signed) return;
  const int32_t shift = static_cast<int32_t>(1u << (precision - 1));
  for (int32_t& s : samples) s += shift;
}

// G.2, per sample as colour_rules.h says (the device runner's rule too).
void rct_forward(std::span<int32_t> c0, std::span<int32_t> c1, std::span<int32_t> c2) {
  const size_t n = std::min({c0.size(), c1.size(), c2.size()});
  for (size_t i = 0; i < n; ++i) rct_forward_sample(c0[i], c1[i], c2[i]);
}

namespace {

// The six arrays of shifted_*_forward are distinct (the header's
// contract); said so on the parameters, the loops run in vector lanes
// without a run-time test of every pair for overlap.
template <typename T, typename Transform>
void shift_and_transform(const int32_t* __restrict i0, const int32_t* __restrict i1, const int32_t* __restrict i2,
                         size_t n, int32_t s0, int32_t s1, int32_t s2, T* __restrict c0, T* __restrict c1,
                         T* __restrict c2, Transform transform) {
  for (size_t i = 0; i < n; ++i) {
    auto r = static_cast<T>(i0[i] - s0), g = static_cast<T>(i1[i] - s1), b = static_cast<T>(i2[i] - s2);
    transform(r, g, b);
    c0[i] = r;
    c1[i] = g;
    c2[i] = b;
  }
}

}  // namespace

void shifted_rct_forward(std::span<const int32_t> i0, std::span<const int32_t> i1, std::span<const int32_t> i2,
                         const int32_t shift[3], int32_t* c0, int32_t* c1, int32_t* c2) {
  shift_and_transform(i0.data(), i1.data(), i2.data(), std::min({i0.size(), i1.size(), i2.size()}), shift[0],
                      shift[1], shift[2], c0, c1, c2, [](int32_t& r, int32_t& g, int32_t& b) {
                        rct_forward_sample(r, g, b);  // colour_rules.h
                      });
}

void shifted_ict_forward(std::span<const int32_t> i0, std::span<const int32_t> i1, std::span<const int32_t> i2,
                         const int32_t shift[3], float* c0, float* c1, float* c2) {
  shift_and_transform(i0.data(), i1.data(), i2.data(), std::min({i0.size(), i1.size(), i2.size()}), shift[0],
                      shift[1], shift[2], c0, c1, c2, [](float& r, float& g, float& b) {
                        ict_forward_sample(r, g, b);  // colour_rules.h
                      });
}

void rct_inverse(std::span<int32_t> c0, std::span<int32_t> c1, std::span<int32_t> c2) {
  const size_t n = std::min({c0.size(), c1.size(), c2.size()});
  for (size_t i = 0; i < n; ++i) {
    rct_inverse_sample(c0[i], c1[i], c2[i], c0[i], c1[i], c2[i]);
  }
}

void ict_forward(std::span<float> c0, std::span<float> c1, std::span<float> c2) {
  const size_t n = std::min({c0.size(), c1.size(), c2.size()});
  for (size_t i = 0; i < n; ++i) ict_forward_sample(c0[i], c1[i], c2[i]);  // colour_rules.h
}

void ict_inverse(std::span<float> c0, std::span<float> c1, std::span<float> c2) {
  const size_t n = std::min({c0.size(), c1.size(), c2.size()});
  for (size_t i = 0; i < n; ++i) ict_inverse_sample(c0[i], c1[i], c2[i]);  // colour_rules.h
}

void samples_from_floats(std::span<const float> in, std::span<int32_t> out, int precision, bool is_signed) {
  const int64_t shift = is_signed ? 0 : int64_t{1} << (precision - 1);
  const int64_t lo = is_signed ? -(int64_t{1} << (precision - 1)) : 0;
  const int64_t hi = is_signed ? (int64_t{1} << (precision - 1)) - 1 : (int64_t{1} << precision) - 1;
  const size_t n = std::min(in.size(), out.size());
  for (size_t i = 0; i < n; ++i) {
    const float v = in[i];
    // Out-of-range values (and NaN from a corrupt stream) clamp rather than overflow.
    const int64_t r = v >= 2147483648.0f ? hi : v >= -2147483648.0f ? std::lrintf(v) + shift : lo;
    out[i] = static_cast<int32_t>(std::clamp<int64_t>(r, lo, hi));
  }
}

void clamp_to_precision(std::span<int32_t> samples, int precision, bool is_signed) {
  const int64_t lo = is_signed ? -(int64_t{1} << (precision - 1)) : 0;
  const int64_t hi = is_signed ? (int64_t{1} << (precision - 1)) - 1 : (int64_t{1} << precision) - 1;
  for (int32_t& s : samples) s = static_cast<int32_t>(std::clamp<int64_t>(s, lo, hi));
}

}  // namespace mallat::codec
