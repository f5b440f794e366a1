// Vertical lifting on a strip of w columns in one sweep down the rows.
//
// The lifting steps of a wavelet (W::forward / W::inverse, the same sequence
// the rows use) run as a wavefront, in place on rows in natural order:
// in sweep iteration i, step j is applied to row r = i - j when r has that
// step's parity, with the steps of one iteration taken in order. Step j at r
// reads rows r - 1 and r + 1, whose latest update (step j - 1 or earlier)
// happened in an iteration <= i, earlier in order, and whose next update
// (step j + 1 or later) happens in an iteration >= i, later in order. A row
// beyond either end is its mirror image, row -1 is row 1 and row h is row
// h - 2 (F.3.7 / F.4.7 whole-sample symmetric extension), and the same
// argument holds for it. So all steps happen in one pass, the window of live
// rows (a few rows of w samples) stays in L1, and each inner loop runs
// across w contiguous columns, which g++ vectorises.
//
// Forward: the strip is copied to scratch, lifted there, and each finished
// row is written once to its packed row in the plane.
// Inverse: the packed strip is copied to scratch, and the sweep loads row r
// (step 0) into the plane just before its neighbours need it, then lifts
// the plane's rows in place.
#pragma once

#include <cstdint>

#include "dwt/cpu/lifting.h"

#ifndef MALLAT_DWT_ISA
#error "include the CPU kernels through dwt/cpu/isa_kernels.h, which names the instruction set"
#endif

namespace mallat::dwt::cpu::MALLAT_DWT_ISA {

// How far ahead of the sweep rows are prefetched.
constexpr int64_t kPrefetchRows = 8;

// Copies one row of a strip; inline, as a libc call per short row costs more
// than the copy.
template <typename T>
inline void copy_row(T* __restrict dst, const T* __restrict src, int64_t w) {
  for (int64_t x = 0; x < w; ++x) dst[x] = src[x];
}

// Plane rows are a stride apart, usually a page or more, where the hardware
// prefetcher does not follow; rows are requested kPrefetchRows ahead so
// that their misses overlap.
template <typename T>
inline void prefetch_row(const T* row, int64_t w) {
  const char* p = reinterpret_cast<const char*>(row);
  const int64_t bytes = w * static_cast<int64_t>(sizeof(T));
  for (int64_t b = 0; b < bytes; b += 64) __builtin_prefetch(p + b, 1);
}

template <typename T>
struct WavefrontLifter {
  T* top;                // row 0 of the strip in the plane
  int64_t stride, w, h;
  bool odd_first;        // row 0 sits at an odd coordinate (it is high-pass)
  int64_t i = 0;         // sweep iteration
  mutable int j = 0;     // index of the next step within the iteration
  int64_t slots = 0;     // > 0: a ring of that many rows, row r in slot r mod slots (ring_sweep.h)
  T* const* rows = nullptr;  // with slots: where each slot's row lies, instead of from top
  bool skip_scales = false;  // leave the scaling steps to the rows' owner (row_scales)

  T* row(int64_t r) const {
    if (r < 0) r = -r;                 // mirror above row 0
    if (r >= h) r = 2 * (h - 1) - r;   // mirror below row h - 1
    if (rows != nullptr) return rows[r % slots];
    return top + (slots > 0 ? r % slots : r) * stride;
  }
  bool is_high(int64_t r) const { return ((r & 1) != 0) != odd_first; }

  // The row this step works on now, or -1.
  int64_t target(bool high) const {
    const int64_t r = i - j++;
    return (r >= 0 && r < h && is_high(r) == high) ? r : -1;
  }

  template <typename F>
  void step(bool high, F f) const {
    const int64_t r = target(high);
    if (r < 0) return;
    T* __restrict a = row(r);
    const T* __restrict b = row(r - 1);
    const T* __restrict c = row(r + 1);
    for (int64_t x = 0; x < w; ++x) a[x] = f(a[x], b[x], c[x]);
  }
  void scale(bool high, T factor) const {
    const int64_t r = target(high);
    if (r < 0 || skip_scales) return;
    T* __restrict a = row(r);
    for (int64_t x = 0; x < w; ++x) a[x] *= factor;
  }

  template <typename F> void on_d(F f) const { step(true, f); }
  template <typename F> void on_s(F f) const { step(false, f); }
  void scale_d(T c) const { scale(true, c); }
  void scale_s(T c) const { scale(false, c); }
};

// The number of steps in W's forward (or inverse) sequence.
template <typename T, typename W>
int count_steps(bool forward) {
  WavefrontLifter<T> probe{nullptr, 0, 0, 0, false};
  probe.i = -1000;  // no row is ever targeted
  if (forward) W::forward(probe);
  else W::inverse(probe);
  return probe.j;
}

// The factors by which W's scaling steps (of its forward or its inverse
// sequence) scale a low-pass and a high-pass row (1 where it has none). A line DWT whose ring skips them applies them
// to each row as it leaves (forward: the last steps of each row) or enters
// (inverse: the first), where no other row's step reads it in between.
template <typename T>
struct ScaleProbe {
  T* low;
  T* high;
  template <typename F> void on_d(F) const {}
  template <typename F> void on_s(F) const {}
  void scale_d(T c) const { *high = c; }
  void scale_s(T c) const { *low = c; }
};

template <typename T, typename W>
struct RowScales {
  T low = T{1}, high = T{1};
  explicit RowScales(bool forward) {
    if (forward) W::forward(ScaleProbe<T>{&low, &high});
    else W::inverse(ScaleProbe<T>{&low, &high});
  }
};

// The mirror image of inverse_strip: copy the strip to scratch, lift it in
// place there, and write each finished row once, to its packed place in
// the plane (low-pass row k to row k, high-pass row k to row sn + k).
template <typename T, typename W>
void forward_strip(T* top, int64_t stride, int64_t w, int64_t h, int64_t y0, T* scratch) {
  if (h <= 0 || w <= 0) return;
  if (h == 1) return lone_sample<T, W>(top, w, y0, true);
  const Split sp(h, y0);
  static const int steps = count_steps<T, W>(true);
  for (int64_t r = 0; r < h; ++r) {
    if (r + kPrefetchRows < h) prefetch_row(top + (r + kPrefetchRows) * stride, w);
    copy_row(scratch + r * w, top + r * stride, w);
  }
  WavefrontLifter<T> lifter{scratch, w, w, h, sp.odd_first};
  for (int64_t i = 0; i < h + steps - 1; ++i) {
    const int64_t ahead = (i + 2 * kPrefetchRows) / 2;  // destinations written soon
    if (ahead < sp.sn) prefetch_row(top + ahead * stride, w);
    if (ahead < sp.dn) prefetch_row(top + (sp.sn + ahead) * stride, w);
    lifter.i = i;
    lifter.j = 0;
    W::forward(lifter);
    const int64_t r = i - (steps - 1);  // finished with its last step
    if (r < 0) continue;
    const int64_t k = r / 2;  // index within its band, either parity
    copy_row(top + (lifter.is_high(r) ? sp.sn + k : k) * stride, scratch + r * w, w);
  }
}

template <typename T, typename W>
void inverse_strip(T* top, int64_t stride, int64_t w, int64_t h, int64_t y0, T* scratch) {
  if (h <= 0 || w <= 0) return;
  if (h == 1) return lone_sample<T, W>(top, w, y0, false);
  const Split sp(h, y0);
  static const int steps = count_steps<T, W>(false);
  for (int64_t r = 0; r < h; ++r) copy_row(scratch + r * w, top + r * stride, w);
  const T* s = scratch;
  const T* d = scratch + sp.sn * w;
  WavefrontLifter<T> lifter{top, stride, w, h, sp.odd_first};
  for (int64_t i = 0; i < h + steps; ++i) {
    if (i < h) {  // step 0: load row i in natural order
      const int64_t k = i / 2;
      copy_row(top + i * stride, (lifter.is_high(i) ? d : s) + k * w, w);
    }
    if (i + kPrefetchRows < h) prefetch_row(top + (i + kPrefetchRows) * stride, w);
    lifter.i = i;
    lifter.j = 1;
    W::inverse(lifter);
  }
}

}  // namespace mallat::dwt::cpu::MALLAT_DWT_ISA
