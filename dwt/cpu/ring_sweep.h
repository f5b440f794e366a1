// The vertical synthesis (VER_SR, F.3.2) of wavefront.h on a ring of rows,
// for the line-based inverse DWT (dwt/line_inverse.h): the same step
// sequence and functors as the whole-plane sweep, so each sample sees the
// same operations, built once per instruction set like the other kernels
// (line_kernels_generic.cc, line_kernels_avx2.cc) because the compiler may
// contract a * b + c differently under -mfma.
#pragma once

#include <algorithm>
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

// Columns per span of load_and_iterate: the spans of the ring's rows and of
// the row's two halves then stay in L1 (5 + 1 spans of 2 KiB for the 5/3),
// where a whole row of a wide plane spills them to L2 between the load and
// the steps that read it.
constexpr int64_t kRingSpan = 512;

// Step 0 (HOR_SR of row i, i < h, from its halves s and d, which are only
// read, into its slot, each sample times factor) and sweep iteration i
// together, a span of columns at a time. A sample of HOR_SR reads only the
// halves, and a vertical step at a column reads only that column of the
// rows, so each sample sees the operations of inverse_row_apart and then
// ring_iteration, in their order. Rows of at least two samples.
template <typename T, typename W>
void load_and_iterate(const T* s, const T* d, T* ring, int64_t w, int64_t x0, int64_t h, int64_t slots,
                      bool odd_first, int64_t i, T factor) {
  const Split sp(w, x0);
  T* row = ring + (i % slots) * w;
  WavefrontLifter<T> lifter{ring, w, 0, h, odd_first};
  lifter.slots = slots;
  lifter.skip_scales = true;
  lifter.i = i;
  // A two-step wavelet (inverse_rows) whose iteration updates low-pass row
  // i - 1 and then high-pass row i - 2, rows i - 3 .. i all inside the
  // column: their slots found once for all spans.
  constexpr bool has_rows = requires(const T* a, T* b, T* c, const T* e) { W::inverse_rows(a, b, c, e, w); };
  const bool rows_inside = has_rows && i >= 3 && !lifter.is_high(i - 1);
  T* const above = rows_inside ? lifter.row(i - 3) : nullptr;
  T* const high = rows_inside ? lifter.row(i - 2) : nullptr;
  T* const low = rows_inside ? lifter.row(i - 1) : nullptr;
  for (int64_t c0 = 0; c0 < w; c0 += kRingSpan) {
    const int64_t c1 = std::min(w, c0 + kRingSpan);
    W::inverse_interleaved_span(s, d, row, sp, factor, c0, c1);
    if constexpr (has_rows) {
      if (rows_inside) {
        W::inverse_rows(above + c0, high + c0, low + c0, row + c0, c1 - c0);
        continue;
      }
    }
    lifter.top = ring + c0;
    lifter.w = c1 - c0;
    lifter.j = 1;
    W::inverse(lifter);
  }
}

template <typename T, typename W>
void lone_row(T* p, int64_t count, int64_t coordinate) {
  lone_sample<T, W>(p, count, coordinate, false);
}

// load_and_iterate where W has a HOR_SR of a span of a row, else null.
template <typename T, typename W>
auto load_and_iterate_of() -> decltype(LineKernels<T>::load_and_iterate) {
  if constexpr (requires(T* s, T* d, T* row, const Split& sp, T factor, int64_t j) {
                  W::inverse_interleaved_span(s, d, row, sp, factor, j, j);
                }) {
    return &load_and_iterate<T, W>;
  } else {
    return nullptr;
  }
}

template <typename T, typename W>
const LineKernels<T>& make_line_kernels() {
  constexpr bool reads_only =
      requires(T* s, T* d, T* row, const Split& sp, T factor) { W::inverse_interleaved(s, d, row, sp, factor); };
  static const RowScales<T, W> scales(false);
  static const LineKernels<T> k{&inverse_row<T, W>, &inverse_row_apart<T, W>, &ring_iteration<T, W>,
                                &lone_row<T, W>, count_steps<T, W>(false), reads_only,
                                &inverse_row_apart_lifted<T, W>, scales.low, scales.high,
                                load_and_iterate_of<T, W>()};
  return k;
}

const LineKernels<int32_t>& line_kernels_53() { return make_line_kernels<int32_t, Reversible53>(); }
const LineKernels<float>& line_kernels_97() { return make_line_kernels<float, Irreversible97>(); }

}  // namespace mallat::dwt::cpu::MALLAT_DWT_ISA
