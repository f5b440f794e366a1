// The HT cleanup's distortion decrease (ht_cleanup_decrease,
// entropy/ht/shared_code_block.h) on the CPU: for magnitudes below 2^24,
// an exact integer sum in AVX2 or AVX-512 lanes; else, and without those
// lanes, the shared rule itself. Each significant sample's m^2 - e^2 (e its
// error left, |a - h| with a its bits below the plane and h half the
// plane's step, E.1.1.2's mid-point) is taken as (m - e)(m + e): one
// product of two factors below 2^25 a sample, which the lanes' 32 x 32 to
// 64-bit multiply gives exactly. The terms are integers and their sum stays
// below 2^62 (4096 samples, A.6.1), so any order of adding them gives the
// shared rule's integer sum.
#include "entropy/ht/code_block.h"

#include "entropy/ht/cpu/cleanup_kernels.h"
#include "entropy/ht/shared_code_block.h"

#if MALLAT_HT_X86
// GCC 12's AVX-512 intrinsics start their results from an undefined vector
// (_mm512_undefined_epi32), which its -Wmaybe-uninitialized takes for a use
// of an uninitialised value.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>
#endif

namespace mallat::entropy {
namespace {

#if MALLAT_HT_X86
// `sum` plus the terms of the samples in v (magnitudes below 2^24), in
// 64-bit lanes: the even samples' products, then the odd ones'.
[[gnu::target(MALLAT_HT_AVX2_TARGET), gnu::always_inline]] inline __m256i add_terms_avx2(__m256i sum, __m256i v,
                                                                                         __m128i by, __m256i low,
                                                                                         __m256i half) {
  const __m256i m = _mm256_abs_epi32(v);
  const __m256i e = _mm256_abs_epi32(_mm256_sub_epi32(_mm256_and_si256(m, low), half));
  // Insignificant samples (no bit at or above the plane) add nothing.
  const __m256i insignificant = _mm256_cmpeq_epi32(_mm256_srl_epi32(m, by), _mm256_setzero_si256());
  const __m256i p = _mm256_andnot_si256(insignificant, _mm256_sub_epi32(m, e));
  const __m256i q = _mm256_add_epi32(m, e);
  sum = _mm256_add_epi64(sum, _mm256_mul_epu32(p, q));
  return _mm256_add_epi64(sum, _mm256_mul_epu32(_mm256_srli_epi64(p, 32), _mm256_srli_epi64(q, 32)));
}

[[gnu::target(MALLAT_HT_AVX2_TARGET)]] int64_t decrease_avx2(PlaneView<const int32_t> c, int shift) {
  const __m128i by = _mm_cvtsi32_si128(shift);
  const __m256i half = _mm256_set1_epi32(shift > 0 ? 1 << (shift - 1) : 0);
  const __m256i low = _mm256_set1_epi32(static_cast<int>((1u << shift) - 1));
  const int64_t w = c.width;
  // The lanes a row's last part vector holds (zeros in the others: insignificant).
  const __m256i tail =
      _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(w % 8)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  __m256i sum = _mm256_setzero_si256();
  for (int64_t y = 0; y < c.height; ++y) {
    const int32_t* row = c.row(y);
    int64_t x = 0;
    for (; x + 8 <= w; x += 8)
      sum = add_terms_avx2(sum, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + x)), by, low, half);
    if (x < w) sum = add_terms_avx2(sum, _mm256_maskload_epi32(row + x, tail), by, low, half);
  }
  alignas(32) int64_t parts[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(parts), sum);
  return parts[0] + parts[1] + parts[2] + parts[3];
}

// As add_terms_avx2, sixteen samples at a time.
[[gnu::target(MALLAT_HT_AVX512_TARGET), gnu::always_inline]] inline __m512i add_terms_avx512(__m512i sum, __m512i v,
                                                                                             __m512i low,
                                                                                             __m512i half) {
  const __m512i m = _mm512_abs_epi32(v);
  const __m512i e = _mm512_abs_epi32(_mm512_sub_epi32(_mm512_and_si512(m, low), half));
  // Only the significant samples (a bit at or above the plane) add.
  const __m512i p = _mm512_maskz_sub_epi32(_mm512_cmpgt_epu32_mask(m, low), m, e);
  const __m512i q = _mm512_add_epi32(m, e);
  sum = _mm512_add_epi64(sum, _mm512_mul_epu32(p, q));
  return _mm512_add_epi64(sum, _mm512_mul_epu32(_mm512_srli_epi64(p, 32), _mm512_srli_epi64(q, 32)));
}

[[gnu::target(MALLAT_HT_AVX512_TARGET)]] int64_t decrease_avx512(PlaneView<const int32_t> c, int shift) {
  const __m512i half = _mm512_set1_epi32(shift > 0 ? 1 << (shift - 1) : 0);
  const __m512i low = _mm512_set1_epi32(static_cast<int>((1u << shift) - 1));
  const int64_t w = c.width;
  const auto tail = static_cast<__mmask16>((1u << (w % 16)) - 1);
  __m512i sum = _mm512_setzero_si512();
  for (int64_t y = 0; y < c.height; ++y) {
    const int32_t* row = c.row(y);
    int64_t x = 0;
    for (; x + 16 <= w; x += 16) sum = add_terms_avx512(sum, _mm512_loadu_si512(row + x), low, half);
    if (x < w) sum = add_terms_avx512(sum, _mm512_maskz_loadu_epi32(tail, row + x), low, half);
  }
  return _mm512_reduce_add_epi64(sum);
}
#endif

}  // namespace

double ht_cleanup_decrease_cpu(PlaneView<const int32_t> c, int shift, uint32_t all, ht::CleanupIsa isa) {
#if MALLAT_HT_X86
  if (all < (uint32_t{1} << 24)) {
    switch (ht::resolve_cleanup_isa(isa)) {
      case ht::CleanupIsa::kAvx512: return static_cast<double>(decrease_avx512(c, shift));
      case ht::CleanupIsa::kAvx2: return static_cast<double>(decrease_avx2(c, shift));
      default: break;
    }
  }
#else
  (void)isa;
#endif
  return ht_cleanup_decrease(c, shift, all);
}

}  // namespace mallat::entropy
