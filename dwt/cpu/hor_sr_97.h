// HOR_SR of the irreversible 9/7 (15444-1 F.3.4, the steps of F.3.8.2 with
// the extension of F.3.7) in one pass over the row, with AVX2: eight pairs
// of band samples a step are scaled, lifted by all four steps, each lagging
// the one before by a pair so that it reads only values already in registers
// or loaded, and stored interleaved. Each sample sees the operations of
// lifting.h's loops (inverse_row_apart_lifted) in their order: the scaling
// one multiply, a step fma(-c, a + b, x) as wavelet_97.h's Step computes
// x - c * (a + b) under -mfma; a scaled sample is kept from being
// contracted into the sum that reads it (opaque), as the loops store it
// between their passes. So
// the results equal that path's bit for bit (tests/dwt/hor_sr_97_test.cc);
// a factor scaling the row after is one multiply more.
// The row's ends, where the extension applies, come from that path run on a
// few pairs at each end. s and d are only read.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "dwt/cpu/hor_sd.h"

namespace mallat::dwt::cpu::MALLAT_DWT_ISA {

#if defined(__AVX2__) && defined(__FMA__)

// Pairs [0, first) and [end, ...) of the row from the plain path, on copies
// of the bands' first and last pairs reaching eight pairs past those taken
// (as hor_sd.h's lift_row_ends: the window's cut changes only pairs within
// a few steps of it). Pair k is low-pass sample k and high-pass sample
// odd + k, at row[odd + 2k] and row[odd + 2k + 1].
template <typename W>
void synthesise_row_ends(const float* s, const float* d, float* row, int64_t n, int64_t i0, int64_t first,
                         int64_t end, float factor) {
  constexpr int64_t kReach = 8;
  const int64_t odd = i0 & 1;
  float ws[48], wd[48], wr[96];
  auto window = [&](int64_t p, int64_t count, int64_t from, int64_t to) {
    // Samples [odd + 2p, odd + 2p + count) of the row at coordinate i0 + odd + 2p,
    // or from the row's start where p < 0 (the lone first high sample).
    const int64_t start = p < 0 ? 0 : odd + 2 * p;
    const Split wp(count, i0 + start);
    const int64_t s0 = p < 0 ? 0 : p, d0 = p < 0 ? 0 : odd + p;
    std::copy(s + s0, s + s0 + wp.sn, ws);
    std::copy(d + d0, d + d0 + wp.dn, wd);
    inverse_row_apart_lifted<float, W>(ws, wd, wr, count, i0 + start, factor);
    std::copy(wr + (from - start), wr + (to - start), row + from);
  };
  window(-1, odd + 2 * (first + kReach), 0, odd + 2 * first);
  const int64_t p = end - kReach;
  window(p, n - odd - 2 * p, odd + 2 * end, n);
}

// F.3.8.2 on the bands s (low) and d (high) of a row of n samples at
// coordinate i0, into `row`: K on the low band, 1/K on the high band, then
// the delta, gamma, beta and alpha steps; then each sample times `factor`.
template <typename W>
void hor_sr_97_avx2(const float* s, const float* d, float* row, int64_t n, int64_t i0, float factor, float alpha,
                    float beta, float gamma, float delta, float k_low, float k_high) {
  constexpr int64_t kFirst = 4;
  if (n < 80) {
    // The plain path lifts the bands where they lie: on copies, as s and d
    // are only read.
    const Split sp(n, i0);
    float ws[48], wd[48];
    std::copy(s, s + sp.sn, ws);
    std::copy(d, d + sp.dn, wd);
    return inverse_row_apart_lifted<float, W>(sp.sn > 0 ? ws : nullptr, sp.dn > 0 ? wd : nullptr, row, n, i0,
                                              factor);
  }
  const int64_t odd = i0 & 1;
  const float* t = d + odd;  // pair k's high sample
  float* out = row + odd;
  const Split sp(n, i0);
  const int64_t tn = sp.dn - odd;
  // Scaled, then each step on one pair (pairs from 1 on: no extension).
  auto s0 = [&](int64_t k) { return opaque(s[k] * k_low); };
  auto t0 = [&](int64_t k) { return opaque(t[k] * k_high); };
  auto step = [](float c, float x, float a, float b) { return std::fma(-c, a + b, x); };
  auto s1 = [&](int64_t k) { return step(delta, s0(k), t0(k - 1), t0(k)); };
  auto t2 = [&](int64_t k) { return step(gamma, t0(k), s1(k), s1(k + 1)); };
  auto s3 = [&](int64_t k) { return step(beta, s1(k), t2(k - 1), t2(k)); };

  const __m256 kl = _mm256_set1_ps(k_low), kh = _mm256_set1_ps(k_high), f = _mm256_set1_ps(factor);
  auto lift = [](float c, __m256 x, __m256 a, __m256 b) {
    return _mm256_fnmadd_ps(_mm256_set1_ps(c), _mm256_add_ps(a, b), x);
  };
  using L = RowLanes;
  __m256 up_t2 = _mm256_set1_ps(t2(kFirst - 1)), up_s3 = _mm256_set1_ps(s3(kFirst - 1));
  int64_t k = kFirst;
  // Iteration k: s1, t2 and s3 of pairs k..k+7 (s1 of k+1..k+8 too), t4 of
  // pairs k-1..k+6, which finishes those pairs. Reads s up to k+8 and t up
  // to k+8.
  for (; k + 9 <= sp.sn && k + 9 <= tn; k += 8) {
    // The bands come from buffers of a whole code-block row, mostly out of
    // cache: asked for 2 KiB ahead, as hor_sr_53.h does.
    _mm_prefetch(reinterpret_cast<const char*>(t + k + 512), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(s + k + 512), _MM_HINT_T0);
    const __m256 ta = opaque(_mm256_mul_ps(_mm256_loadu_ps(t + k - 1), kh));  // k-1..k+6
    const __m256 tb = opaque(_mm256_mul_ps(_mm256_loadu_ps(t + k), kh));      // k..k+7
    const __m256 tc = opaque(_mm256_mul_ps(_mm256_loadu_ps(t + k + 1), kh));  // k+1..k+8
    const __m256 sa = opaque(_mm256_mul_ps(_mm256_loadu_ps(s + k), kl));      // k..k+7
    const __m256 sb = opaque(_mm256_mul_ps(_mm256_loadu_ps(s + k + 1), kl));  // k+1..k+8
    const __m256 s1a = lift(delta, sa, ta, tb);                                // k..k+7
    const __m256 s1b = lift(delta, sb, tb, tc);                                // k+1..k+8
    const __m256 t2 = lift(gamma, tb, s1a, s1b);                               // k..k+7
    const __m256 t2_up = L::rotate_up(t2);
    const __m256 t2_prev = L::previous(t2_up, up_t2);                            // k-1..k+6
    const __m256 s3 = lift(beta, s1a, t2_prev, t2);                            // k..k+7
    const __m256 s3_up = L::rotate_up(s3);
    const __m256 s3_prev = L::previous(s3_up, up_s3);                            // k-1..k+6
    const __m256 t4 = lift(alpha, t2_prev, s3_prev, s3);                       // k-1..k+6
    // Interleave: pairs within each 128-bit half, then the halves in order.
    const __m256 s3f = _mm256_mul_ps(s3_prev, f), t4f = _mm256_mul_ps(t4, f);
    const __m256 lo = _mm256_unpacklo_ps(s3f, t4f), hi = _mm256_unpackhi_ps(s3f, t4f);
    _mm256_storeu_ps(out + 2 * (k - 1), _mm256_permute2f128_ps(lo, hi, 0x20));
    _mm256_storeu_ps(out + 2 * (k - 1) + 8, _mm256_permute2f128_ps(lo, hi, 0x31));
    up_t2 = t2_up;
    up_s3 = s3_up;
  }
  synthesise_row_ends<W>(s, d, row, n, i0, kFirst - 1, k - 1, factor);
}

#endif  // __AVX2__ && __FMA__

}  // namespace mallat::dwt::cpu::MALLAT_DWT_ISA
