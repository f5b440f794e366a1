// Building blocks of the CPU backend's lifting (Annex F.3.8 / F.4.8).
//
// A line of n samples starting at absolute coordinate i0 is split into its
// low-pass samples s[] (even coordinates) and high-pass samples d[] (odd
// coordinates). Every lifting step updates one of the two arrays from the
// two neighbours in the other: A[k] = f(A[k], B[k - 1 + o], B[k + o]), where
// the offset o depends on which array comes first. The periodic symmetric
// extension (F.3.7, F.4.7) commutes with these symmetric steps, so a
// neighbour beyond either end is its mirror image: B[-1] is B[0] and B[nb] is
// B[nb - 1]. Only the first and last sample of a step see the boundary; the
// middle is a plain loop that g++ -O3 vectorises.
//
// A LineLifter runs the steps on one row (the loop runs along the row);
// wavefront.h runs the same step sequences down strips of columns.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#ifndef MALLAT_DWT_ISA
#error "include the CPU kernels through dwt/cpu/isa_kernels.h, which names the instruction set"
#endif

namespace mallat::dwt::cpu::MALLAT_DWT_ISA {

// How a line of n samples at coordinate i0 splits (sn low, dn high), and
// which array holds the first sample.
struct Split {
  int64_t sn = 0, dn = 0;
  bool odd_first = false;  // i0 is odd: the first sample is high-pass
  Split(int64_t n, int64_t i0) : odd_first((i0 & 1) != 0) {
    sn = odd_first ? n / 2 : (n + 1) / 2;
    dn = n - sn;
  }
  // Neighbour offset o of a step that updates d (from s) or s (from d).
  int d_offset() const { return odd_first ? 0 : 1; }
  int s_offset() const { return odd_first ? 1 : 0; }
};

inline int64_t clamp_index(int64_t i, int64_t n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

// A[k] = f(A[k], B[k-1+o], B[k+o]) for k in [0, na), one sample per element.
template <typename T, typename F>
inline void lift_line(T* __restrict a, int64_t na, const T* __restrict b, int64_t nb, int o, F f) {
  const int64_t lo = std::min<int64_t>(o == 0 ? 1 : 0, na);        // first k with B[k-1+o]
  const int64_t hi = std::max<int64_t>(lo, std::min<int64_t>(na, nb - o));  // B[k+o] exists below
  for (int64_t k = 0; k < lo; ++k) a[k] = f(a[k], b[clamp_index(k - 1 + o, nb)], b[clamp_index(k + o, nb)]);
  const T* __restrict bl = b + o - 1;
  const T* __restrict br = b + o;
  for (int64_t k = lo; k < hi; ++k) a[k] = f(a[k], bl[k], br[k]);
  for (int64_t k = hi; k < na; ++k) a[k] = f(a[k], b[clamp_index(k - 1 + o, nb)], b[clamp_index(k + o, nb)]);
}

// Applies a step to d (from s) or s (from d), or scales one array, for
// either kind of line; the wavelet files write their step sequence once
// against this interface.
template <typename T>
struct LineLifter {
  T* s;
  T* d;
  Split split;
  template <typename F> void on_d(F f) const { lift_line(d, split.dn, s, split.sn, split.d_offset(), f); }
  template <typename F> void on_s(F f) const { lift_line(s, split.sn, d, split.dn, split.s_offset(), f); }
  void scale(T* a, int64_t n, T c) const { for (int64_t k = 0; k < n; ++k) a[k] *= c; }
  void scale_s(T c) const { scale(s, split.sn, c); }
  void scale_d(T c) const { scale(d, split.dn, c); }
};

// Row <-> (s, d). The forward pass writes the row back packed, s first.
template <typename T>
inline void deinterleave_row(const T* __restrict row, const Split& sp, T* __restrict s, T* __restrict d) {
  const T* __restrict ev = row + (sp.odd_first ? 1 : 0);
  const T* __restrict od = row + (sp.odd_first ? 0 : 1);
  for (int64_t k = 0; k < sp.sn; ++k) s[k] = ev[2 * k];
  for (int64_t k = 0; k < sp.dn; ++k) d[k] = od[2 * k];
}

template <typename T>
inline void interleave_row(const T* __restrict s, const T* __restrict d, const Split& sp, T* __restrict row) {
  T* __restrict ev = row + (sp.odd_first ? 1 : 0);
  T* __restrict od = row + (sp.odd_first ? 0 : 1);
  for (int64_t k = 0; k < sp.sn; ++k) ev[2 * k] = s[k];
  for (int64_t k = 0; k < sp.dn; ++k) od[2 * k] = d[k];
}

// F.3.7 / F.4.7: a line of one sample is left alone at an even coordinate;
// at an odd one it is the high-pass sample, doubled (halved on synthesis).
template <typename T, typename W>
void lone_sample(T* p, int64_t count, int64_t coordinate, bool forward) {
  if ((coordinate & 1) == 0) return;
  for (int64_t j = 0; j < count; ++j) p[j] = forward ? W::lone_forward(p[j]) : W::lone_inverse(p[j]);
}

template <typename T, typename W>
void forward_row_lifted(T* row, int64_t n, int64_t i0, T* scratch) {
  if (n <= 0) return;
  if (n == 1) return lone_sample<T, W>(row, 1, i0, true);
  const Split sp(n, i0);
  deinterleave_row(row, sp, scratch, scratch + sp.sn);
  W::forward(LineLifter<T>{scratch, scratch + sp.sn, sp});
  std::memcpy(row, scratch, n * sizeof(T));  // s then d: the packed order
}

// Each of n samples times `factor`, as a scaling step does (a[x] *= c); a
// factor of 1 leaves them as they are.
template <typename T>
inline void scale_samples(T* a, int64_t n, T factor) {
  if (factor == T{1}) return;
  for (int64_t k = 0; k < n; ++k) a[k] *= factor;
}

// HOR_SD of row `in` (left as it is) into its low-pass samples `low` and
// high-pass samples `high`, which may lie apart (each may be null where the
// row has none): deinterleaved there and lifted in place, so that each
// sample sees forward_row's operations in its order, with no scratch copy.
// `factor` scales each sample first: VER_SD's last step, which the line
// DWT's ring leaves to its rows (F.4.8.2's K or 1/K on a whole row).
template <typename T, typename W>
void forward_row_apart_lifted(const T* in, T* low, T* high, int64_t n, int64_t i0, T factor = T{1}) {
  if (n <= 0) return;
  if (n == 1) {
    T* out = (i0 & 1) != 0 ? high : low;
    out[0] = in[0];
    scale_samples(out, 1, factor);
    return lone_sample<T, W>(out, 1, i0, true);
  }
  const Split sp(n, i0);
  deinterleave_row(in, sp, low, high);
  scale_samples(low, sp.sn, factor);
  scale_samples(high, sp.dn, factor);
  W::forward(LineLifter<T>{low, high, sp});
}

// The same, in one pass where the wavelet has one for this instruction set
// (hor_sd.h).
template <typename T, typename W>
void forward_row_apart(const T* in, T* low, T* high, int64_t n, int64_t i0, T factor) {
  if constexpr (requires { W::forward_apart(in, low, high, n, i0, factor); }) {
    W::forward_apart(in, low, high, n, i0, factor);
  } else {
    forward_row_apart_lifted<T, W>(in, low, high, n, i0, factor);
  }
}

// HOR_SD of a row in place (scratch: n samples), packed low-pass first:
// forward_row_lifted, or the wavelet's one pass into scratch where it has one.
template <typename T, typename W>
void forward_row(T* row, int64_t n, int64_t i0, T* scratch) {
  if constexpr (requires { W::forward_apart(row, scratch, scratch, n, i0, T{1}); }) {
    if (n <= 1) return forward_row_lifted<T, W>(row, n, i0, scratch);
    const Split sp(n, i0);
    W::forward_apart(row, scratch, scratch + sp.sn, n, i0, T{1});
    std::memcpy(row, scratch, n * sizeof(T));
  } else {
    forward_row_lifted<T, W>(row, n, i0, scratch);
  }
}

// HOR_SR of a row whose low-pass samples s[] and high-pass samples d[] lie
// apart (each may be null where the row has none): lifted where they lie,
// then interleaved into `row`, or in one pass where the wavelet has one for
// this instruction set. inverse_row is this on the packed row's copy.
// `factor` scales each sample of the row after: VER_SR's first step, which
// the line DWT's ring leaves to its rows (F.3.8.2's K or 1/K).
template <typename T, typename W>
void inverse_row_apart_lifted(T* s, T* d, T* row, int64_t n, int64_t i0, T factor = T{1}) {
  if (n <= 0) return;
  if (n == 1) {
    row[0] = s != nullptr ? s[0] : d[0];
    lone_sample<T, W>(row, 1, i0, false);
    return scale_samples(row, 1, factor);
  }
  const Split sp(n, i0);
  W::inverse(LineLifter<T>{s, d, sp});
  interleave_row(s, d, sp, row);
  scale_samples(row, n, factor);
}

template <typename T, typename W>
void inverse_row_apart(T* s, T* d, T* row, int64_t n, int64_t i0, T factor = T{1}) {
  const Split sp(n, i0);
  if constexpr (requires { W::inverse_interleaved(s, d, row, sp, factor); }) {
    if (n <= 1) return inverse_row_apart_lifted<T, W>(s, d, row, n, i0, factor);
    W::inverse_interleaved(s, d, row, sp, factor);  // the same samples in one pass (hor_sr_53.h, hor_sr_97.h)
  } else {
    inverse_row_apart_lifted<T, W>(s, d, row, n, i0, factor);
  }
}

template <typename T, typename W>
void inverse_row(T* row, int64_t n, int64_t i0, T* scratch) {
  if (n <= 0) return;
  if (n == 1) return lone_sample<T, W>(row, 1, i0, false);
  const Split sp(n, i0);
  std::memcpy(scratch, row, n * sizeof(T));
  inverse_row_apart<T, W>(scratch, scratch + sp.sn, row, n, i0);
}

}  // namespace mallat::dwt::cpu::MALLAT_DWT_ISA
