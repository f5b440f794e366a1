// The kernels one wavelet provides to the CPU backend's level loop, built
// from its step sequence by lifting.h (rows) and wavefront.h (strips).
#pragma once

#include <cstdint>

#include "dwt/cpu/lifting.h"
#include "dwt/cpu/wavefront.h"

namespace mallat::dwt::cpu {

// Rows: one row of n samples at coordinate i0, scratch of n elements.
// Strips: w columns by h rows at coordinate y0, scratch of w * h elements.
template <typename T>
struct Kernels {
  void (*forward_row)(T* row, int64_t n, int64_t i0, T* scratch);
  void (*inverse_row)(T* row, int64_t n, int64_t i0, T* scratch);
  void (*forward_strip)(T* top, int64_t stride, int64_t w, int64_t h, int64_t y0, T* scratch);
  void (*inverse_strip)(T* top, int64_t stride, int64_t w, int64_t h, int64_t y0, T* scratch);
};

template <typename T, typename W>
const Kernels<T>& make_kernels() {
  static const Kernels<T> k{&forward_row<T, W>, &inverse_row<T, W>, &forward_strip<T, W>,
                            &inverse_strip<T, W>};
  return k;
}

const Kernels<int32_t>& kernels_53();
const Kernels<float>& kernels_97();

}  // namespace mallat::dwt::cpu
