// The reversible 5/3 lifting steps of F.4.8.1 (forward) and F.3.8.1
// (inverse), in integers with the floor divisions written as arithmetic
// shifts (C++20: >> on a negative value floors).
#pragma once

#include <cstdint>

#include "dwt/cpu/hor_sd.h"
#include "dwt/cpu/hor_sr_53.h"

namespace mallat::dwt::cpu::MALLAT_DWT_ISA {

struct Reversible53 {
  // Y(2n+1) = X(2n+1) - floor((X(2n) + X(2n+2)) / 2), then
  // Y(2n)   = X(2n) + floor((Y(2n-1) + Y(2n+1) + 2) / 4).
  template <typename L>
  static void forward(const L& l) {
    l.on_d([](int32_t x, int32_t a, int32_t b) { return x - ((a + b) >> 1); });
    l.on_s([](int32_t x, int32_t a, int32_t b) { return x + ((a + b + 2) >> 2); });
  }
  // X(2n)   = Y(2n) - floor((Y(2n-1) + Y(2n+1) + 2) / 4), then
  // X(2n+1) = Y(2n+1) + floor((X(2n) + X(2n+2)) / 2): one sample each.
  static int32_t inverse_s(int32_t x, int32_t a, int32_t b) { return x - ((a + b + 2) >> 2); }
  static int32_t inverse_d(int32_t x, int32_t a, int32_t b) { return x + ((a + b) >> 1); }
  template <typename L>
  static void inverse(const L& l) {
    l.on_s([](int32_t x, int32_t a, int32_t b) { return inverse_s(x, a, b); });
    l.on_d([](int32_t x, int32_t a, int32_t b) { return inverse_d(x, a, b); });
  }
  // Both steps above on n columns of four consecutive rows of a column,
  // none of them an extension's mirror image: the low-pass row `low` from
  // its neighbours `high` (before its own step) and `below`, then the
  // high-pass row `high` from `above` and the new `low`, column by column,
  // so that each row is read and written once rather than twice.
  static void inverse_rows(const int32_t* __restrict above, int32_t* __restrict high, int32_t* __restrict low,
                           const int32_t* __restrict below, int64_t n) {
    for (int64_t x = 0; x < n; ++x) {
      const int32_t s = inverse_s(low[x], high[x], below[x]);
      low[x] = s;
      high[x] = inverse_d(high[x], above[x], s);
    }
  }
#if defined(__AVX2__)
  // HOR_SR in one pass (hor_sr_53.h), which lifting.h's inverse_row_apart
  // takes where a wavelet has it.
  static void inverse_interleaved(const int32_t* s, const int32_t* d, int32_t* row, const Split& sp,
                                  int32_t factor) {
    hor_sr_53_avx2<Reversible53>(s, d, row, sp);
    scale_samples(row, sp.sn + sp.dn, factor);
  }
  // Samples [j0, j1) of the same, which ring_sweep.h's load_and_iterate
  // takes a span of columns at a time.
  static void inverse_interleaved_span(const int32_t* s, const int32_t* d, int32_t* row, const Split& sp,
                                       int32_t factor, int64_t j0, int64_t j1) {
    hor_sr_53_avx2_span<Reversible53>(s, d, row, sp, j0, j1);
    scale_samples(row + j0, j1 - j0, factor);
  }
#endif
#if defined(__AVX2__) && defined(__FMA__)
  // HOR_SD in one pass (hor_sd.h), which lifting.h's forward_row_apart takes.
  static void forward_apart(const int32_t* in, int32_t* low, int32_t* high, int64_t n, int64_t i0, int32_t factor) {
    hor_sd_53_avx2<Reversible53>(in, low, high, n, i0, factor);
  }
#endif
  // F.4.7 / F.3.7: a lone sample at an odd coordinate is doubled, and halved
  // back (truncating, as OpenJPEG does for odd values a lossy decode can give).
  static int32_t lone_forward(int32_t x) { return x * 2; }
  static int32_t lone_inverse(int32_t x) { return x / 2; }
};

}  // namespace mallat::dwt::cpu::MALLAT_DWT_ISA
