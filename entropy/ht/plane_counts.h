// The fast passes' form of an HT block's plane statistics
// (plane_estimate.h): every count and energy an exact integer sum, and the
// vector step that counts eight quads, shared by the pass over a block's
// indices (gather_ht_plane_statistics) and the pass that quantises a block
// and counts it as it goes (codec/stages/quantise_statistics.h). Internal.
#pragma once

#include <bit>
#include <cstdint>

#include "common/plane_view.h"
#include "entropy/ht/plane_estimate.h"

#if defined(__x86_64__)
// GCC 12's AVX-512 intrinsics start their results from an undefined vector
// (_mm512_undefined_epi32), which its -Wmaybe-uninitialized and
// -Wuninitialized take for a use of an uninitialised value: in every file
// that inlines count_quads_avx512.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>
#endif

namespace mallat::entropy::detail {

// The statistics with each energy an exact integer sum, and the samples of
// bit length 0 counted too (column 0, dropped): no branch per sample.
struct ExactCounts {
  uint32_t quads[kHtPlanes] = {};
  uint32_t samples[kHtPlanes][kHtPlanes] = {};
  uint64_t energy[kHtPlanes] = {};
};

// The largest magnitude for which the exact sums equal the reference's
// double sums: a block of at most 4096 samples (15444-1 A.6.1: xcb + ycb
// <= 12) of squares below 2^40 sums below 2^52, so every partial double sum
// is exact.
inline constexpr int kExactMagnitudeBits = 20;
inline constexpr int64_t kMostSamples = 4096;

// The quads of rows r0 and r1 (null past the block's last row) from column
// x on, one at a time: those the vector steps leave at the block's edges.
void count_edge_quads(ExactCounts& c, int fraction_bits, const int32_t* r0, const int32_t* r1, int64_t x,
                      int64_t width);

// The counts as the reference's statistics (energies in index units).
void to_statistics(const ExactCounts& c, int fraction_bits, HtPlaneStatistics& out);

// The significant samples of a step (bit k of `significant`: sample k of
// keys and mags, a key its quad's bit length x 32 + its own) into the
// counts; a sample of v = 0 counts nowhere.
inline void count_significant(ExactCounts& c, uint32_t significant, const uint32_t* keys, const uint32_t* mags) {
  uint32_t* samples = &c.samples[0][0];
  for (; significant != 0; significant &= significant - 1) {
    const int at = std::countr_zero(significant);
    ++samples[keys[at]];
    c.energy[keys[at] % kHtPlanes] += uint64_t{mags[at]} * mags[at];
  }
}

#if defined(__x86_64__)

// Bit length of v = m >> F: the float exponent less 126, 0 for v = 0.
[[gnu::target("avx2")]] inline __m256i bit_lengths(__m256i m, __m128i shift) {
  const __m256i v = _mm256_srl_epi32(m, shift);
  const __m256i e = _mm256_srli_epi32(_mm256_castps_si256(_mm256_cvtepi32_ps(v)), 23);
  return _mm256_max_epi32(_mm256_sub_epi32(e, _mm256_set1_epi32(126)), _mm256_setzero_si256());
}

// Eight quads: the magnitudes m[0], m[1] (row 0, columns 0-7 and 8-15)
// and m[2], m[3] (row 1, the same columns), each below 2^24 (the bit
// lengths are exact as floats) and 2^32 squared in the energies; a quad's
// two columns are neighbouring lanes. Per quad its largest bit length, then
// per significant sample its quad's and its own. A step of insignificant
// quads, the most common, is one test.
[[gnu::target("avx2")]] inline void count_quads_avx2(const __m256i m[4], __m128i shift, ExactCounts& c) {
  const __m256i any = _mm256_or_si256(_mm256_or_si256(m[0], m[1]), _mm256_or_si256(m[2], m[3]));
  if (_mm256_testz_si256(_mm256_srl_epi32(any, shift), _mm256_set1_epi32(-1))) {
    c.quads[0] += 8;
    return;
  }
  __m256i length[4];
  uint32_t significant = 0;  // bit 8k + j: sample j of m[k] has v > 0
  for (int k = 0; k < 4; ++k) {
    length[k] = bit_lengths(m[k], shift);
    const __m256i nonzero = _mm256_cmpgt_epi32(length[k], _mm256_setzero_si256());
    significant |= static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(nonzero))) << (8 * k);
  }
  alignas(32) int32_t top[2][8];
  // Per sample its quad's bit length and its own: where it counts in
  // ExactCounts::samples (row-major).
  alignas(32) uint32_t key[4][8];
  alignas(32) uint32_t mag[4][8];
  for (int h = 0; h < 2; ++h) {
    const __m256i rows = _mm256_max_epi32(length[h], length[h + 2]);
    const __m256i quads = _mm256_max_epi32(rows, _mm256_shuffle_epi32(rows, 0xb1));
    _mm256_store_si256(reinterpret_cast<__m256i*>(top[h]), quads);
    for (const int k : {h, h + 2}) {
      _mm256_store_si256(reinterpret_cast<__m256i*>(key[k]), _mm256_add_epi32(_mm256_slli_epi32(quads, 5), length[k]));
      _mm256_store_si256(reinterpret_cast<__m256i*>(mag[k]), m[k]);
    }
  }
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 8; i += 2) ++c.quads[top[h][i]];
  count_significant(c, significant, &key[0][0], &mag[0][0]);
}

// The same eight quads with AVX-512's 16 lanes, one row a vector (m0 row
// 0's magnitudes, m1 row 1's): the bit lengths from the lanes' leading zero
// counts (CD), the significant samples as a mask.
[[gnu::target("avx2,avx512f,avx512cd,avx512bw,avx512vl")]] inline void count_quads_avx512(__m512i m0, __m512i m1,
                                                                                          __m128i shift,
                                                                                          ExactCounts& c) {
  const __m512i v0 = _mm512_srl_epi32(m0, shift);
  const __m512i v1 = _mm512_srl_epi32(m1, shift);
  // Bit k (k < 16): sample k of row 0 has v > 0; bit 16 + k, of row 1.
  const uint32_t significant = static_cast<uint32_t>(_mm512_test_epi32_mask(v0, v0)) |
                               static_cast<uint32_t>(_mm512_test_epi32_mask(v1, v1)) << 16;
  if (significant == 0) {
    c.quads[0] += 8;
    return;
  }
  const __m512i width_bits = _mm512_set1_epi32(32);
  const __m512i length0 = _mm512_sub_epi32(width_bits, _mm512_lzcnt_epi32(v0));
  const __m512i length1 = _mm512_sub_epi32(width_bits, _mm512_lzcnt_epi32(v1));
  const __m512i rows = _mm512_max_epi32(length0, length1);
  const __m512i quads = _mm512_max_epi32(rows, _mm512_shuffle_epi32(rows, _MM_PERM_CDAB));
  alignas(64) int32_t top[16];
  alignas(64) uint32_t key[2][16];
  alignas(64) uint32_t mag[2][16];
  _mm512_store_si512(top, quads);
  const __m512i quad_keys = _mm512_slli_epi32(quads, 5);
  _mm512_store_si512(key[0], _mm512_add_epi32(quad_keys, length0));
  _mm512_store_si512(key[1], _mm512_add_epi32(quad_keys, length1));
  _mm512_store_si512(mag[0], m0);
  _mm512_store_si512(mag[1], m1);
  for (int i = 0; i < 16; i += 2) ++c.quads[top[i]];
  count_significant(c, significant, &key[0][0], &mag[0][0]);
}

#endif

}  // namespace mallat::entropy::detail
