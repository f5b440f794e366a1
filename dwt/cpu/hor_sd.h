// HOR_SD (15444-1 F.4.4) in one pass over the row, for the reversible 5/3
// (the steps of F.4.8.1) and the irreversible 9/7 (F.4.8.2), with AVX2:
// eight pairs of samples a step are deinterleaved with shuffles, and all the
// wavelet's lifting steps (and the 9/7's scalings) run on them at once, each
// step lagging the one before by a sample so that it reads only values
// already in registers. Each sample sees the operations of lifting.h's loops
// (forward_row_apart_lifted) in their order: a 9/7 step is fma(c, a + b, x),
// as wavelet_97.h's Step computes it under -mfma, and a scaling one multiply;
// so the results equal that path's bit for bit (tests/dwt/hor_sd_test.cc).
// The row's ends, where the extension of F.4.7 applies, come from that path
// run on a few samples at each end.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "dwt/cpu/lifting.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

#ifndef MALLAT_DWT_ISA
#error "include the CPU kernels through dwt/cpu/isa_kernels.h, which names the instruction set"
#endif

namespace mallat::dwt::cpu::MALLAT_DWT_ISA {

#if defined(__AVX2__) && defined(__FMA__)

// A value the compiler must compute as it stands: no multiply-add is formed
// across it (a scaled sample is rounded before a sum reads it, as when the
// scaling is a pass of its own).
inline float opaque(float v) {
  asm("" : "+x"(v));
  return v;
}
inline __m256 opaque(__m256 v) {
  asm("" : "+x"(v));
  return v;
}

// Pair k of the row is low-pass sample k, x[odd + 2k], and the high-pass
// sample after it, x[odd + 2k + 1], which is high-pass sample odd + k (a
// row at an odd coordinate starts with a lone high-pass sample). Below, s
// and t are the pairs' low and high samples as lifted so far.
struct RowLanes {
  // Pairs k..k+7 from x + odd + 2k: the low samples, then the high ones.
  static void split(const float* p, __m256& s, __m256& t) {
    const __m256 a = _mm256_loadu_ps(p), b = _mm256_loadu_ps(p + 8);
    // Within each 128-bit half: a0 a2 b0 b2 | a4 a6 b4 b6; then the
    // 64-bit pieces in order.
    s = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, 0x88)), 0xD8));
    t = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, 0xDD)), 0xD8));
  }
  static void split(const int32_t* p, __m256i& s, __m256i& t) {
    __m256 fs, ft;
    split(reinterpret_cast<const float*>(p), fs, ft);
    s = _mm256_castps_si256(fs);
    t = _mm256_castps_si256(ft);
  }
  static __m256 rotate_down(__m256 v) { return _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 0)); }
  static __m256 rotate_up(__m256 v) { return _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(7, 0, 1, 2, 3, 4, 5, 6)); }
  static __m256i rotate_down(__m256i v) { return _mm256_castps_si256(rotate_down(_mm256_castsi256_ps(v))); }
  static __m256i rotate_up(__m256i v) { return _mm256_castps_si256(rotate_up(_mm256_castsi256_ps(v))); }
  static __m256i next(__m256i down_cur, __m256i down_next) { return _mm256_blend_epi32(down_cur, down_next, 0x80); }
  static __m256i previous(__m256i up_cur, __m256i up_prev) { return _mm256_blend_epi32(up_cur, up_prev, 0x01); }
  // v[k+1..k+8] from rotate_down of v[k..k+7] and of v[k+8..k+15].
  static __m256 next(__m256 down_cur, __m256 down_next) { return _mm256_blend_ps(down_cur, down_next, 0x80); }
  // v[k-1..k+6] from rotate_up of v[k..k+7] and of v[k-8..k-1].
  static __m256 previous(__m256 up_cur, __m256 up_prev) { return _mm256_blend_ps(up_cur, up_prev, 0x01); }
  // A 9/7 lifting step x + c * (a + b), rounded once as the loops' Step is.
  static __m256 lift(float c, __m256 x, __m256 a, __m256 b) {
    return _mm256_fmadd_ps(_mm256_set1_ps(c), _mm256_add_ps(a, b), x);
  }
};

// Pairs [0, first) and [end, ...) of the row from the plain path, run on
// windows of the row's first and last samples that reach eight pairs past
// the pairs taken: a window's cut extends it there (F.4.7), which changes
// the pairs within a step or two of the cut (each lifting step reaches one
// pair further), never the pairs taken. The caller's row is long enough
// that the windows fit.
template <typename T, typename W>
void lift_row_ends(const T* in, T* low, T* high, int64_t n, int64_t i0, int64_t first, int64_t end, T factor) {
  constexpr int64_t kReach = 8;
  T wl[48], wh[48];
  const int64_t odd = i0 & 1;
  forward_row_apart_lifted<T, W>(in, wl, wh, odd + 2 * (first + kReach), i0, factor);
  std::copy(wl, wl + first, low);
  std::copy(wh, wh + odd + first, high);
  const int64_t p = end - kReach;  // the tail window's first pair
  const int64_t sn = Split(n, i0).sn, tn = n - sn - odd;
  forward_row_apart_lifted<T, W>(in + odd + 2 * p, wl, wh, n - odd - 2 * p, i0 + odd + 2 * p, factor);
  std::copy(wl + kReach, wl + (sn - p), low + end);
  std::copy(wh + kReach, wh + (tn - p), high + odd + end);
}

// The lifted values that pair k0's step needs from the pairs before it, one
// at a time as the loops compute them (no extension: k0 >= 4).
inline float lift_one(float c, float x, float a, float b) { return std::fma(c, a + b, x); }

// F.4.8.1 on row `in` (n samples at coordinate i0) into `low` and `high`:
// Y(2n+1) = X(2n+1) - floor((X(2n) + X(2n+2)) / 2), then
// Y(2n) = X(2n) + floor((Y(2n-1) + Y(2n+1) + 2) / 4), as wavelet_53.h. The
// 5/3 scales nothing: a factor other than 1 goes the plain way.
template <typename W>
void hor_sd_53_avx2(const int32_t* in, int32_t* low, int32_t* high, int64_t n, int64_t i0, int32_t factor) {
  constexpr int64_t kFirst = 2;
  if (n < 64 || factor != 1) return forward_row_apart_lifted<int32_t, W>(in, low, high, n, i0, factor);
  const int64_t odd = i0 & 1;
  const int32_t* x = in + odd;
  int32_t* t_out = high + odd;
  using L = RowLanes;
  __m256i s_cur, t_cur;
  L::split(x + 2 * kFirst, s_cur, t_cur);
  __m256i down_s = L::rotate_down(s_cur);
  const int64_t j = kFirst - 1;  // the high sample of pair kFirst - 1 after its step
  __m256i up_t1 = _mm256_set1_epi32(x[2 * j + 1] - ((x[2 * j] + x[2 * j + 2]) >> 1));
  const __m256i two = _mm256_set1_epi32(2);
  int64_t k = kFirst;
  for (; odd + 2 * k + 32 <= n; k += 8) {
    __builtin_prefetch(low + k + 256, 1);  // as hor_sd_97_avx2's
    __builtin_prefetch(t_out + k + 256, 1);
    __m256i s_next, t_next;
    L::split(x + 2 * k + 16, s_next, t_next);
    const __m256i down_s_next = L::rotate_down(s_next);
    const __m256i s_right = L::next(down_s, down_s_next);
    const __m256i t1 = _mm256_sub_epi32(t_cur, _mm256_srai_epi32(_mm256_add_epi32(s_cur, s_right), 1));  // k..k+7
    const __m256i t1_up = L::rotate_up(t1);
    const __m256i t1_left = L::previous(t1_up, up_t1);  // k-1..k+6
    const __m256i s2 = _mm256_add_epi32(s_cur, _mm256_srai_epi32(_mm256_add_epi32(_mm256_add_epi32(t1_left, t1), two), 2));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(low + k), s2);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(t_out + k), t1);
    s_cur = s_next;
    t_cur = t_next;
    down_s = down_s_next;
    up_t1 = t1_up;
  }
  lift_row_ends<int32_t, W>(in, low, high, n, i0, kFirst, k, 1);
}

// F.4.8.2 on row `in` (n samples at coordinate i0, each times `factor`
// first) into `low` and `high`. Steps: alpha, beta, gamma, delta, then K on
// the high band, 1/K on the low.
template <typename W>
void hor_sd_97_avx2(const float* in, float* low, float* high, int64_t n, int64_t i0, float factor, float alpha,
                    float beta, float gamma, float delta, float k_high, float k_low) {
  // The vector loop starts at pair kFirst and reads the block of eight pairs
  // after the one it lifts; shorter rows go the plain way.
  constexpr int64_t kFirst = 4;
  if (n < 80) return forward_row_apart_lifted<float, W>(in, low, high, n, i0, factor);
  const int64_t odd = i0 & 1;
  const float* x = in + odd;
  float* t_out = high + odd;  // high-pass sample odd + k is pair k's
  auto s0 = [&](int64_t k) { return opaque(x[2 * k] * factor); };
  auto t0 = [&](int64_t k) { return opaque(x[2 * k + 1] * factor); };
  auto t1_at = [&](int64_t k) { return lift_one(alpha, t0(k), s0(k), s0(k + 1)); };
  auto s2_at = [&](int64_t k) { return lift_one(beta, s0(k), t1_at(k - 1), t1_at(k)); };
  auto t3_at = [&](int64_t k) { return lift_one(gamma, t1_at(k), s2_at(k), s2_at(k + 1)); };

  // Iteration k: t1 and s2 of pairs k..k+7, t3 and s4 of pairs k-1..k+6,
  // which finish those pairs. up_*: rotate_up of the block before.
  using L = RowLanes;
  const __m256 f = _mm256_set1_ps(factor);
  auto split = [&](const float* p, __m256& s, __m256& t) {
    L::split(p, s, t);
    s = opaque(_mm256_mul_ps(s, f));
    t = opaque(_mm256_mul_ps(t, f));
  };
  __m256 s_cur, t_cur;
  split(x + 2 * kFirst, s_cur, t_cur);
  __m256 down_s = L::rotate_down(s_cur);
  __m256 up_t1 = _mm256_set1_ps(t1_at(kFirst - 1)), up_s2 = _mm256_set1_ps(s2_at(kFirst - 1)),
         up_t3 = _mm256_set1_ps(t3_at(kFirst - 2));
  const __m256 kh = _mm256_set1_ps(k_high), kl = _mm256_set1_ps(k_low);
  int64_t k = kFirst;
  // The next block, pairs k+8..k+15, ends at sample odd + 2k + 31.
  for (; odd + 2 * k + 32 <= n; k += 8) {
    // The bands mostly go to buffers of a whole code-block row, out of
    // cache: their lines asked for ahead, to be written (a prefetch past
    // their end is harmless).
    __builtin_prefetch(low + k + 256, 1);
    __builtin_prefetch(t_out + k + 256, 1);
    __m256 s_next, t_next;
    split(x + 2 * k + 16, s_next, t_next);
    const __m256 down_s_next = L::rotate_down(s_next);
    const __m256 t1 = L::lift(alpha, t_cur, s_cur, L::next(down_s, down_s_next));  // pairs k..k+7
    const __m256 t1_up = L::rotate_up(t1);
    const __m256 t1_prev = L::previous(t1_up, up_t1);                            // k-1..k+6
    const __m256 s2 = L::lift(beta, s_cur, t1_prev, t1);                          // k..k+7
    const __m256 s2_up = L::rotate_up(s2);
    const __m256 s2_prev = L::previous(s2_up, up_s2);                             // k-1..k+6
    const __m256 t3 = L::lift(gamma, t1_prev, s2_prev, s2);                       // k-1..k+6
    const __m256 t3_up = L::rotate_up(t3);
    const __m256 s4 = L::lift(delta, s2_prev, L::previous(t3_up, up_t3), t3);    // k-1..k+6
    _mm256_storeu_ps(low + k - 1, _mm256_mul_ps(s4, kl));
    _mm256_storeu_ps(t_out + k - 1, _mm256_mul_ps(t3, kh));
    s_cur = s_next;
    t_cur = t_next;
    down_s = down_s_next;
    up_t1 = t1_up;
    up_s2 = s2_up;
    up_t3 = t3_up;
  }
  lift_row_ends<float, W>(in, low, high, n, i0, kFirst - 1, k - 1, factor);
}

#endif  // __AVX2__ && __FMA__

}  // namespace mallat::dwt::cpu::MALLAT_DWT_ISA
