#include "codec/stages/output_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace mallat::codec {
namespace {

// Pixel i's components 0..2 through the inverse transform, shifted and
// clamped: the RCT of integers, the ICT of floats (colour_rules.h).
inline void pixel(const int32_t* y0, const int32_t* y1, const int32_t* y2, int64_t i, const SampleRange r[3],
                  int32_t v[3]) {
  rct_inverse_sample(y0[i], y1[i], y2[i], v[0], v[1], v[2]);
  for (int c = 0; c < 3; ++c) v[c] = shift_and_clamp(v[c], r[c]);
}
inline void pixel(const float* y0, const float* y1, const float* y2, int64_t i, const SampleRange r[3],
                  int32_t v[3]) {
  float c0 = y0[i], c1 = y1[i], c2 = y2[i];
  ict_inverse_sample(c0, c1, c2);
  v[0] = round_shift_and_clamp(c0, r[0]);
  v[1] = round_shift_and_clamp(c1, r[1]);
  v[2] = round_shift_and_clamp(c2, r[2]);
}
inline int32_t sample(const int32_t* src, int64_t i, const SampleRange& r) { return shift_and_clamp(src[i], r); }
inline int32_t sample(const float* src, int64_t i, const SampleRange& r) { return round_shift_and_clamp(src[i], r); }

template <typename T>
void plain_three_to_bytes(const T* y0, const T* y1, const T* y2, uint8_t* out, int64_t n, int stride,
                          const SampleRange r[3]) {
  for (int64_t i = 0; i < n; ++i) {
    int32_t v[3];
    pixel(y0, y1, y2, i, r, v);
    for (int c = 0; c < 3; ++c) out[stride * i + c] = static_cast<uint8_t>(v[c]);
  }
}

template <typename T>
void plain_three_to_samples(const T* y0, const T* y1, const T* y2, int32_t* o0, int32_t* o1, int32_t* o2, int64_t n,
                            const SampleRange r[3]) {
  for (int64_t i = 0; i < n; ++i) {
    int32_t v[3];
    pixel(y0, y1, y2, i, r, v);
    o0[i] = v[0];
    o1[i] = v[1];
    o2[i] = v[2];
  }
}

template <typename T>
void plain_one_to_bytes(const T* src, uint8_t* out, int64_t n, int stride, const SampleRange& r) {
  for (int64_t i = 0; i < n; ++i) out[stride * i] = static_cast<uint8_t>(sample(src, i, r));
}

template <typename T>
void plain_one_to_samples(const T* src, int32_t* out, int64_t n, const SampleRange& r) {
  for (int64_t i = 0; i < n; ++i) out[i] = sample(src, i, r);
}

#if defined(__x86_64__)

// The AVX2 loops work in 32-bit lanes with the plain loops' operations,
// lane by lane: wrapping integer additions; for the ICT single-precision
// multiplies and additions in G-10's order, never fused (this code is built
// without FMA); clamps before rounding as round_shift_and_clamp's, MAXPS
// returning its second operand, the low end, for NaN; rounding to nearest,
// ties to even (CVTPS2DQ in the default mode, as lrintf).

// A component's range, for integers and (the ends less the shift, exact
// up to 24 bits) for floats.
struct Ranges {
  __m256i shift, lo, hi;
  __m256 float_lo, float_hi;
};

[[gnu::target("avx2")]] inline Ranges ranges_avx2(const SampleRange& r) {
  return {_mm256_set1_epi32(r.shift), _mm256_set1_epi32(r.lo), _mm256_set1_epi32(r.hi),
          _mm256_set1_ps(static_cast<float>(r.lo - r.shift)), _mm256_set1_ps(static_cast<float>(r.hi - r.shift))};
}

[[gnu::target("avx2")]] inline __m256i clamped_avx2(__m256i v, const Ranges& r) {
  return _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(v, r.shift), r.lo), r.hi);
}
[[gnu::target("avx2")]] inline __m256i clamped_avx2(__m256 v, const Ranges& r) {
  return _mm256_add_epi32(_mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(v, r.float_lo), r.float_hi)), r.shift);
}

// Eight samples from i, shifted and clamped.
[[gnu::target("avx2")]] inline __m256i samples_avx2(const int32_t* src, int64_t i, const Ranges& r) {
  return clamped_avx2(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i)), r);
}
[[gnu::target("avx2")]] inline __m256i samples_avx2(const float* src, int64_t i, const Ranges& r) {
  return clamped_avx2(_mm256_loadu_ps(src + i), r);
}

// Eight pixels from i: pixel's steps.
[[gnu::target("avx2")]] inline void pixels_avx2(const int32_t* y0, const int32_t* y1, const int32_t* y2, int64_t i,
                                                const Ranges r[3], __m256i v[3]) {
  const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(y0 + i));
  const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(y1 + i));
  const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(y2 + i));
  const __m256i g = _mm256_sub_epi32(a, _mm256_srai_epi32(_mm256_add_epi32(b, c), 2));  // rct_inverse_sample
  v[0] = clamped_avx2(_mm256_add_epi32(c, g), r[0]);
  v[1] = clamped_avx2(g, r[1]);
  v[2] = clamped_avx2(_mm256_add_epi32(b, g), r[2]);
}
[[gnu::target("avx2")]] inline void pixels_avx2(const float* y0, const float* y1, const float* y2, int64_t i,
                                                const Ranges r[3], __m256i v[3]) {
  const __m256 y = _mm256_loadu_ps(y0 + i), cb = _mm256_loadu_ps(y1 + i), cr = _mm256_loadu_ps(y2 + i);
  // ict_inverse_sample, term by term.
  v[0] = clamped_avx2(_mm256_add_ps(y, _mm256_mul_ps(_mm256_set1_ps(1.402f), cr)), r[0]);
  v[1] = clamped_avx2(_mm256_sub_ps(_mm256_sub_ps(y, _mm256_mul_ps(_mm256_set1_ps(0.34413f), cb)),
                                    _mm256_mul_ps(_mm256_set1_ps(0.71414f), cr)),
                      r[1]);
  v[2] = clamped_avx2(_mm256_add_ps(y, _mm256_mul_ps(_mm256_set1_ps(1.772f), cb)), r[2]);
}

// Eight pixels' clamped components (each in [0, 255]) packed to bytes and
// shuffled into pixel order. Each 128-bit half's store writes 16 bytes for
// its 12, so a call writes 4 bytes past its pixels: the caller runs it while
// two more pixels follow, which later steps write.
[[gnu::target("avx2")]] inline void store_pixels_avx2(const __m256i v[3], uint8_t* out) {
  // Within each half: r0..r3 g0..g3 b0..b3 (then 4 zeros) to r0 g0 b0 r1 ...
  const __m256i order = _mm256_setr_epi8(0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, 12, 13, 14, 15, 0, 4, 8, 1, 5, 9, 2, 6,
                                         10, 3, 7, 11, 12, 13, 14, 15);
  const __m256i bytes =
      _mm256_packus_epi16(_mm256_packs_epi32(v[0], v[1]), _mm256_packs_epi32(v[2], _mm256_setzero_si256()));
  const __m256i pixels = _mm256_shuffle_epi8(bytes, order);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm256_castsi256_si128(pixels));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 12), _mm256_extracti128_si256(pixels, 1));
}

template <typename T>
[[gnu::target("avx2")]] int64_t three_to_bytes_avx2(const T* y0, const T* y1, const T* y2, uint8_t* out, int64_t n,
                                                    const SampleRange range[3]) {
  const Ranges r[3] = {ranges_avx2(range[0]), ranges_avx2(range[1]), ranges_avx2(range[2])};
  int64_t i = 0;
  for (; i + 10 <= n; i += 8) {
    __m256i v[3];
    pixels_avx2(y0, y1, y2, i, r, v);
    store_pixels_avx2(v, out + 3 * i);
  }
  return i;
}

template <typename T>
[[gnu::target("avx2")]] int64_t three_to_samples_avx2(const T* y0, const T* y1, const T* y2, int32_t* o0, int32_t* o1,
                                                      int32_t* o2, int64_t n, const SampleRange range[3]) {
  const Ranges r[3] = {ranges_avx2(range[0]), ranges_avx2(range[1]), ranges_avx2(range[2])};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i v[3];
    pixels_avx2(y0, y1, y2, i, r, v);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(o0 + i), v[0]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(o1 + i), v[1]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(o2 + i), v[2]);
  }
  return i;
}

// One component into bytes, 32 samples a step: the packs interleave their
// sources' 128-bit halves (dword k of the result holds four samples of
// each source in turn, half by half); the permutation puts them in order.
template <typename T>
[[gnu::target("avx2")]] int64_t one_to_bytes_avx2(const T* src, uint8_t* out, int64_t n, const SampleRange& range) {
  const Ranges r = ranges_avx2(range);
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i bytes =
        _mm256_packus_epi16(_mm256_packs_epi32(samples_avx2(src, i, r), samples_avx2(src, i + 8, r)),
                            _mm256_packs_epi32(samples_avx2(src, i + 16, r), samples_avx2(src, i + 24, r)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm256_permutevar8x32_epi32(bytes, order));
  }
  return i;
}

template <typename T>
[[gnu::target("avx2")]] int64_t one_to_samples_avx2(const T* src, int32_t* out, int64_t n, const SampleRange& range) {
  const Ranges r = ranges_avx2(range);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), samples_avx2(src, i, r));
  return i;
}

// Each: the AVX2 loop (the byte kernels' where the stride is its), then the
// plain loop for the rest.
template <typename T>
void three_to_bytes(const T* y0, const T* y1, const T* y2, uint8_t* out, int64_t n, int stride,
                    const SampleRange r[3]) {
  const int64_t done = stride == 3 ? three_to_bytes_avx2(y0, y1, y2, out, n, r) : 0;
  plain_three_to_bytes(y0 + done, y1 + done, y2 + done, out + stride * done, n - done, stride, r);
}

template <typename T>
void three_to_samples(const T* y0, const T* y1, const T* y2, int32_t* o0, int32_t* o1, int32_t* o2, int64_t n,
                      const SampleRange r[3]) {
  const int64_t done = three_to_samples_avx2(y0, y1, y2, o0, o1, o2, n, r);
  plain_three_to_samples(y0 + done, y1 + done, y2 + done, o0 + done, o1 + done, o2 + done, n - done, r);
}

template <typename T>
void one_to_bytes(const T* src, uint8_t* out, int64_t n, int stride, const SampleRange& r) {
  const int64_t done = stride == 1 ? one_to_bytes_avx2(src, out, n, r) : 0;
  plain_one_to_bytes(src + done, out + stride * done, n - done, stride, r);
}

template <typename T>
void one_to_samples(const T* src, int32_t* out, int64_t n, const SampleRange& r) {
  const int64_t done = one_to_samples_avx2(src, out, n, r);
  plain_one_to_samples(src + done, out + done, n - done, r);
}

bool has_avx2() {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2;
}
#endif

}  // namespace

const ByteKernels& plain_byte_kernels() {
  static const ByteKernels k{&plain_three_to_bytes<int32_t>, &plain_three_to_bytes<float>,
                             &plain_one_to_bytes<int32_t>, &plain_one_to_bytes<float>};
  return k;
}

const SampleKernels& plain_sample_kernels() {
  static const SampleKernels k{&plain_three_to_samples<int32_t>, &plain_three_to_samples<float>,
                               &plain_one_to_samples<int32_t>, &plain_one_to_samples<float>};
  return k;
}

const ByteKernels& byte_kernels() {
#if defined(__x86_64__)
  static const ByteKernels avx2{&three_to_bytes<int32_t>, &three_to_bytes<float>, &one_to_bytes<int32_t>,
                                &one_to_bytes<float>};
  if (has_avx2()) return avx2;
#endif
  return plain_byte_kernels();
}

const SampleKernels& sample_kernels() {
#if defined(__x86_64__)
  static const SampleKernels avx2{&three_to_samples<int32_t>, &three_to_samples<float>, &one_to_samples<int32_t>,
                                  &one_to_samples<float>};
  if (has_avx2()) return avx2;
#endif
  return plain_sample_kernels();
}

}  // namespace mallat::codec
