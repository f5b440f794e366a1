// The CPU decoder's last step: a T1State's decoded magnitudes and signs as
// two's-complement samples, what write_decoded_samples (entropy/ebcot/passes.h,
// the plain loop, which the shared decoder runs) writes. The state keeps a
// stripe column's four magnitudes adjacent and its flags in one word, while
// the samples go out row by row: here four stripe columns at a time are
// masked in vector registers (four rows each) and transposed, so each of the
// four rows gets four samples with one store, instead of the plain loop's
// strided loads, one sample at a time. CPU only; internal to the entropy
// module. Tested against the plain loop (tests/entropy/t1_samples_test.cc).
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "entropy/ebcot/flags.h"
#include "entropy/ebcot/passes.h"

namespace mallat::entropy::detail {

// Row r of the stripe column with word `word` and magnitude `magnitude`:
// the magnitude where the sample is significant, else 0, negated where its
// sign says so (write_decoded_samples' masks).
template <int r>
inline int32_t decoded_sample(uint32_t word, uint32_t magnitude) {
  const uint32_t m = magnitude & (0u - ((word >> (3 * (r + 1) + 1)) & 1));
  const uint32_t neg = 0u - ((word >> (19 + r)) & 1);
  return static_cast<int32_t>((m ^ neg) - neg);
}

// The samples of stripe column x, rows 0 .. rows-1 of the stripe starting
// at `out` (rows `stride` apart), one at a time.
inline void write_stripe_column(const uint32_t* f, const uint32_t* m, int x, int rows, int32_t* out,
                                ptrdiff_t stride) {
  const uint32_t word = f[x];
  const uint32_t* mag = m + 4 * x;
  out[x] = decoded_sample<0>(word, mag[0]);
  if (rows > 1) out[stride + x] = decoded_sample<1>(word, mag[1]);
  if (rows > 2) out[2 * stride + x] = decoded_sample<2>(word, mag[2]);
  if (rows > 3) out[3 * stride + x] = decoded_sample<3>(word, mag[3]);
}

#if defined(__SSE2__)
// The four samples (rows 0..3) of one stripe column in a vector: each
// lane's significance and sign bits tested by a mask of its row's bits.
inline __m128i column_samples(uint32_t word, const uint32_t* mag) {
  const __m128i sig = _mm_setr_epi32(1 << 4, 1 << 7, 1 << 10, 1 << 13);
  const __m128i neg = _mm_setr_epi32(1 << 19, 1 << 20, 1 << 21, 1 << 22);
  const __m128i w = _mm_set1_epi32(static_cast<int>(word));
  const __m128i significant = _mm_cmpeq_epi32(_mm_and_si128(w, sig), sig);
  const __m128i negative = _mm_cmpeq_epi32(_mm_and_si128(w, neg), neg);
  const __m128i m = _mm_and_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(mag)), significant);
  return _mm_sub_epi32(_mm_xor_si128(m, negative), negative);
}
#endif

// write_decoded_samples for the CPU's T1State.
inline void write_decoded_samples_by_columns(T1State& s, int32_t* samples, ptrdiff_t stride) {
  for (int y0 = 0; y0 < s.height; y0 += 4) {
    const int rows = s.height - y0 < 4 ? s.height - y0 : 4;
    const uint32_t* f = s.column(0, y0);
    const uint32_t* m = s.magnitude(0, y0);
    int32_t* out = samples + y0 * stride;
    int x = 0;
#if defined(__SSE2__)
    if (rows == 4) {
      for (; x + 4 <= s.width; x += 4) {
        const __m128i c0 = column_samples(f[x], m + 4 * x);
        const __m128i c1 = column_samples(f[x + 1], m + 4 * x + 4);
        const __m128i c2 = column_samples(f[x + 2], m + 4 * x + 8);
        const __m128i c3 = column_samples(f[x + 3], m + 4 * x + 12);
        // Columns to rows: a 4x4 transpose.
        const __m128i t0 = _mm_unpacklo_epi32(c0, c1);  // rows 0, 1 of columns 0, 1
        const __m128i t1 = _mm_unpacklo_epi32(c2, c3);  // rows 0, 1 of columns 2, 3
        const __m128i t2 = _mm_unpackhi_epi32(c0, c1);  // rows 2, 3 of columns 0, 1
        const __m128i t3 = _mm_unpackhi_epi32(c2, c3);  // rows 2, 3 of columns 2, 3
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + x), _mm_unpacklo_epi64(t0, t1));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + stride + x), _mm_unpackhi_epi64(t0, t1));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * stride + x), _mm_unpacklo_epi64(t2, t3));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 3 * stride + x), _mm_unpackhi_epi64(t2, t3));
      }
    }
#endif
    for (; x < s.width; ++x) write_stripe_column(f, m, x, rows, out, stride);
  }
}

}  // namespace mallat::entropy::detail
