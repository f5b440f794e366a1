#include "codec/stages/output_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace mallat::codec {
namespace {

void plain_rct_to_bytes(const int32_t* y0, const int32_t* y1, const int32_t* y2, uint8_t* out, int64_t n, int stride,
                  const SampleRange r[3]) {
  for (int64_t i = 0; i < n; ++i) {
    int32_t i0, i1, i2;
    rct_inverse_sample(y0[i], y1[i], y2[i], i0, i1, i2);
    out[stride * i] = static_cast<uint8_t>(shift_and_clamp(i0, r[0]));
    out[stride * i + 1] = static_cast<uint8_t>(shift_and_clamp(i1, r[1]));
    out[stride * i + 2] = static_cast<uint8_t>(shift_and_clamp(i2, r[2]));
  }
}

void plain_ict_to_bytes(const float* y0, const float* y1, const float* y2, uint8_t* out, int64_t n, int stride,
                  const SampleRange r[3]) {
  for (int64_t i = 0; i < n; ++i) {
    float c0 = y0[i], c1 = y1[i], c2 = y2[i];
    ict_inverse_sample(c0, c1, c2);
    out[stride * i] = static_cast<uint8_t>(round_shift_and_clamp(c0, r[0]));
    out[stride * i + 1] = static_cast<uint8_t>(round_shift_and_clamp(c1, r[1]));
    out[stride * i + 2] = static_cast<uint8_t>(round_shift_and_clamp(c2, r[2]));
  }
}

void plain_ints_to_bytes(const int32_t* src, uint8_t* out, int64_t n, int stride, const SampleRange& r) {
  for (int64_t i = 0; i < n; ++i) out[stride * i] = static_cast<uint8_t>(shift_and_clamp(src[i], r));
}

void plain_floats_to_bytes(const float* src, uint8_t* out, int64_t n, int stride, const SampleRange& r) {
  for (int64_t i = 0; i < n; ++i) out[stride * i] = static_cast<uint8_t>(round_shift_and_clamp(src[i], r));
}

#if defined(__x86_64__)

// The AVX2 loops work in 32-bit lanes with the plain loops' operations,
// lane by lane: wrapping integer additions; for the ICT single-precision
// multiplies and additions in G-10's order, never fused (this code is built
// without FMA); clamps before rounding as round_shift_and_clamp's, MAXPS
// returning its second operand, the low end, for NaN; rounding to nearest,
// ties to even (CVTPS2DQ in the default mode, as lrintf).

struct Ranges {
  __m256i shift, lo, hi;
};

[[gnu::target("avx2")]] inline Ranges ranges_avx2(const SampleRange& r) {
  return {_mm256_set1_epi32(r.shift), _mm256_set1_epi32(r.lo), _mm256_set1_epi32(r.hi)};
}

[[gnu::target("avx2")]] inline __m256i shift_and_clamp_avx2(__m256i v, const Ranges& r) {
  return _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(v, r.shift), r.lo), r.hi);
}

// The range's ends less the shift, as floats (exact up to 24 bits).
struct FloatRanges {
  __m256 lo, hi;
  __m256i shift;
};

[[gnu::target("avx2")]] inline FloatRanges float_ranges_avx2(const SampleRange& r) {
  return {_mm256_set1_ps(static_cast<float>(r.lo - r.shift)), _mm256_set1_ps(static_cast<float>(r.hi - r.shift)),
          _mm256_set1_epi32(r.shift)};
}

[[gnu::target("avx2")]] inline __m256i round_shift_and_clamp_avx2(__m256 v, const FloatRanges& r) {
  return _mm256_add_epi32(_mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(v, r.lo), r.hi)), r.shift);
}

// Eight pixels' clamped components (each in [0, 255]) packed to bytes and
// shuffled into pixel order. Each 128-bit half's store writes 16 bytes for
// its 12, so a call writes 4 bytes past its pixels: the caller runs it while
// two more pixels follow, which later steps write.
[[gnu::target("avx2")]] inline void store_pixels_avx2(__m256i v0, __m256i v1, __m256i v2, uint8_t* out) {
  // Within each half: r0..r3 g0..g3 b0..b3 (then 4 zeros) to r0 g0 b0 r1 ...
  const __m256i order = _mm256_setr_epi8(0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, 12, 13, 14, 15, 0, 4, 8, 1, 5, 9, 2, 6,
                                         10, 3, 7, 11, 12, 13, 14, 15);
  const __m256i bytes = _mm256_packus_epi16(_mm256_packs_epi32(v0, v1), _mm256_packs_epi32(v2, _mm256_setzero_si256()));
  const __m256i pixels = _mm256_shuffle_epi8(bytes, order);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm256_castsi256_si128(pixels));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 12), _mm256_extracti128_si256(pixels, 1));
}

// Thirty-two clamped samples (each in [0, 255]) packed to bytes in order.
[[gnu::target("avx2")]] inline void store_samples_avx2(__m256i v0, __m256i v1, __m256i v2, __m256i v3, uint8_t* out) {
  // The packs interleave the sources' 128-bit halves: dword k of the result
  // holds samples 4 k.. of v0, v2, ... half by half; this puts them in order.
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  const __m256i bytes = _mm256_packus_epi16(_mm256_packs_epi32(v0, v1), _mm256_packs_epi32(v2, v3));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_permutevar8x32_epi32(bytes, order));
}

[[gnu::target("avx2")]] int64_t rct_to_bytes_avx2(const int32_t* y0, const int32_t* y1, const int32_t* y2,
                                                  uint8_t* out, int64_t n, const SampleRange r[3]) {
  const Ranges r0 = ranges_avx2(r[0]), r1 = ranges_avx2(r[1]), r2 = ranges_avx2(r[2]);
  int64_t i = 0;
  for (; i + 10 <= n; i += 8) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(y0 + i));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(y1 + i));
    const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(y2 + i));
    const __m256i g = _mm256_sub_epi32(a, _mm256_srai_epi32(_mm256_add_epi32(b, c), 2));  // rct_inverse_sample
    store_pixels_avx2(shift_and_clamp_avx2(_mm256_add_epi32(c, g), r0), shift_and_clamp_avx2(g, r1),
                      shift_and_clamp_avx2(_mm256_add_epi32(b, g), r2), out + 3 * i);
  }
  return i;
}

[[gnu::target("avx2")]] int64_t ict_to_bytes_avx2(const float* y0, const float* y1, const float* y2, uint8_t* out,
                                                  int64_t n, const SampleRange r[3]) {
  const FloatRanges r0 = float_ranges_avx2(r[0]), r1 = float_ranges_avx2(r[1]), r2 = float_ranges_avx2(r[2]);
  const __m256 k_r = _mm256_set1_ps(1.402f), k_gb = _mm256_set1_ps(0.34413f), k_gr = _mm256_set1_ps(0.71414f),
               k_b = _mm256_set1_ps(1.772f);
  int64_t i = 0;
  for (; i + 10 <= n; i += 8) {
    const __m256 y = _mm256_loadu_ps(y0 + i), cb = _mm256_loadu_ps(y1 + i), cr = _mm256_loadu_ps(y2 + i);
    // ict_inverse_sample, term by term.
    const __m256 c0 = _mm256_add_ps(y, _mm256_mul_ps(k_r, cr));
    const __m256 c1 = _mm256_sub_ps(_mm256_sub_ps(y, _mm256_mul_ps(k_gb, cb)), _mm256_mul_ps(k_gr, cr));
    const __m256 c2 = _mm256_add_ps(y, _mm256_mul_ps(k_b, cb));
    store_pixels_avx2(round_shift_and_clamp_avx2(c0, r0), round_shift_and_clamp_avx2(c1, r1),
                      round_shift_and_clamp_avx2(c2, r2), out + 3 * i);
  }
  return i;
}

// One component, 32 samples a step.
[[gnu::target("avx2")]] inline __m256i clamped_avx2(const int32_t* src, const Ranges& r, const FloatRanges&) {
  return shift_and_clamp_avx2(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src)), r);
}
[[gnu::target("avx2")]] inline __m256i clamped_avx2(const float* src, const Ranges&, const FloatRanges& r) {
  return round_shift_and_clamp_avx2(_mm256_loadu_ps(src), r);
}

template <typename T>
[[gnu::target("avx2")]] int64_t one_component_avx2(const T* src, uint8_t* out, int64_t n, const SampleRange& range) {
  const Ranges r = ranges_avx2(range);
  const FloatRanges f = float_ranges_avx2(range);
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    store_samples_avx2(clamped_avx2(src + i, r, f), clamped_avx2(src + i + 8, r, f), clamped_avx2(src + i + 16, r, f),
                       clamped_avx2(src + i + 24, r, f), out + i);
  }
  return i;
}

// The AVX2 loop where the stride is its, then the plain loop for the rest.
template <typename T, int64_t (*vector)(const T*, const T*, const T*, uint8_t*, int64_t, const SampleRange*),
          void (*rest)(const T*, const T*, const T*, uint8_t*, int64_t, int, const SampleRange*)>
void three_components_then_plain(const T* y0, const T* y1, const T* y2, uint8_t* out, int64_t n, int stride,
                           const SampleRange r[3]) {
  const int64_t done = stride == 3 ? vector(y0, y1, y2, out, n, r) : 0;
  rest(y0 + done, y1 + done, y2 + done, out + stride * done, n - done, stride, r);
}

template <typename T, void (*rest)(const T*, uint8_t*, int64_t, int, const SampleRange&)>
void one_component_then_plain(const T* src, uint8_t* out, int64_t n, int stride, const SampleRange& r) {
  const int64_t done = stride == 1 ? one_component_avx2(src, out, n, r) : 0;
  rest(src + done, out + stride * done, n - done, stride, r);
}
#endif

}  // namespace

const ByteKernels& plain_byte_kernels() {
  static const ByteKernels k{&plain_rct_to_bytes, &plain_ict_to_bytes, &plain_ints_to_bytes, &plain_floats_to_bytes};
  return k;
}

const ByteKernels& byte_kernels() {
#if defined(__x86_64__)
  static const ByteKernels avx2{&three_components_then_plain<int32_t, &rct_to_bytes_avx2, &plain_rct_to_bytes>,
                                &three_components_then_plain<float, &ict_to_bytes_avx2, &plain_ict_to_bytes>,
                                &one_component_then_plain<int32_t, &plain_ints_to_bytes>,
                                &one_component_then_plain<float, &plain_floats_to_bytes>};
  static const bool has_avx2 = __builtin_cpu_supports("avx2");
  if (has_avx2) return avx2;
#endif
  return plain_byte_kernels();
}

}  // namespace mallat::codec
