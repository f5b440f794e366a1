// The vertical synthesis (VER_SR, F.3.2) of wavefront.h on a ring of rows,
// for the line-based inverse DWT (dwt/line_inverse.h): the same step
// sequence and functors as the whole-plane sweep, so each sample sees the
// same operations, built once per instruction set like the other kernels
// (line_kernels_generic.cc, line_kernels_avx2.cc) because the compiler may
// contract a * b + c differently under -mfma.
#pragma once

#include <cstdint>

#include "dwt/cpu/line_kernels.h"
#include "dwt/cpu/lifting.h"
#include "dwt/cpu/wavelet_53.h"
#include "dwt/cpu/wavelet_97.h"
#include "dwt/cpu/wavefront.h"

#ifndef MALLAT_DWT_ISA
#error "include dwt/cpu/ring_sweep.h from a file that names the instruction set"
#endif

namespace mallat::dwt::cpu::MALLAT_DWT_ISA {

// Sweep iteration i: step j (1..steps) on row i - j; step 0, loading row
// i, is the caller's.
template <typename T, typename W>
void ring_iteration(T* ring, int64_t w, int64_t h, int64_t slots, bool odd_first, int64_t i) {
  // wavefront.h's lifter over the ring: row r in slot r mod slots.
  WavefrontLifter<T> lifter{ring, w, w, h, odd_first};
  lifter.slots = slots;
  lifter.skip_scales = true;
  lifter.i = i;
  lifter.j = 1;
  W::inverse(lifter);
}

template <typename T, typename W>
void lone_row(T* p, int64_t count, int64_t coordinate) {
  lone_sample<T, W>(p, count, coordinate, false);
}

template <typename T, typename W>
const LineKernels<T>& make_line_kernels() {
  constexpr bool reads_only =
      requires(T* s, T* d, T* row, const Split& sp, T factor) { W::inverse_interleaved(s, d, row, sp, factor); };
  static const RowScales<T, W> scales(false);
  static const LineKernels<T> k{&inverse_row<T, W>, &inverse_row_apart<T, W>, &ring_iteration<T, W>,
                                &lone_row<T, W>, count_steps<T, W>(false), reads_only,
                                &inverse_row_apart_lifted<T, W>, scales.low, scales.high};
  return k;
}

const LineKernels<int32_t>& line_kernels_53() { return make_line_kernels<int32_t, Reversible53>(); }
const LineKernels<float>& line_kernels_97() { return make_line_kernels<float, Irreversible97>(); }

}  // namespace mallat::dwt::cpu::MALLAT_DWT_ISA
