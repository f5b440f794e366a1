// One quad's samples from the HT cleanup pass's MagSgn stream (15444-15
// Annex C.3.5-C.3.6) for the fast decoder (entropy/ht/cpu/cleanup_decoder_kernel.h): from the
// quad's significance rho, its exponent bound U_q and the VLC's e_k and e_1,
// each significant sample n takes m_n = U_q - e_k[n] bits v (the magnitude
// less 1, times 2, plus the sign), with bit m_n set where e_1 says the
// exponent is U_q. Three ways to the same values: per sample in scalars,
// the four samples at once in 64-bit vector lanes (GCC/Clang vector
// extensions: AVX2's variable shifts where the caller is built for AVX2),
// and two quads' eight samples at once in AVX2 lanes. Internal.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

#include "entropy/ht/cpu/cleanup_kernels.h"
#include "entropy/ht/fast_readers.h"

#if MALLAT_HT_X86
#include <immintrin.h>
#endif

namespace mallat::entropy::ht {

struct QuadValues {
  int32_t value[4];                   // rho's order: top left, bottom left, top right, bottom right
  int e_bottom_left, e_bottom_right;  // exponents (0 if insignificant) for the next row's kappa
};

// Sample n of a quad from its m bits `raw`: the value, and its exponent
// (0 when insignificant). Spelled out per n: a loop over arrays here is kept
// in memory by the compiler.
template <int n>
[[gnu::always_inline]] inline int32_t sample_value(uint64_t raw, int m, int rho, int e_1, int p, uint64_t mu_limit,
                                                   int& e) {
  const int significant = rho >> n & 1;
  const uint64_t v = raw | static_cast<uint64_t>(e_1 >> n & 1) << m;
  e = significant * std::bit_width(v | 1);
  const uint64_t mu = std::min((v >> 1) + 1, mu_limit);
  const auto magnitude = static_cast<int32_t>(mu << p);
  return significant ? ((v & 1) ? -magnitude : magnitude) : 0;
}

// Any quad: magnitudes clamped below 2^K (mu_limit = 2^K - 1), as the
// reference decoder does for corrupt bounds.
[[gnu::always_inline]] inline QuadValues quad_values(fast::ForwardReader& ms, int rho, int bound, int e_k, int e_1,
                                                     int p, uint64_t mu_limit) {
  const int m0 = (rho & 1) * (bound - (e_k & 1));
  const int m1 = (rho >> 1 & 1) * (bound - (e_k >> 1 & 1));
  const int m2 = (rho >> 2 & 1) * (bound - (e_k >> 2 & 1));
  const int m3 = (rho >> 3 & 1) * (bound - (e_k >> 3 & 1));
  const int total = m0 + m1 + m2 + m3;
  uint64_t v0, v1, v2, v3;
  if (total <= 56) [[likely]] {
    const uint64_t bits = ms.bits();
    v0 = low_bits(bits, m0);
    v1 = low_bits(bits >> m0, m1);
    v2 = low_bits(bits >> (m0 + m1), m2);
    v3 = low_bits(bits >> (m0 + m1 + m2), m3);
    ms.advance(total);
  } else {
    v0 = ms.take(m0);
    v1 = ms.take(m1);
    v2 = ms.take(m2);
    v3 = ms.take(m3);
  }
  QuadValues q;
  int e_top = 0;
  q.value[0] = sample_value<0>(v0, m0, rho, e_1, p, mu_limit, e_top);
  q.value[1] = sample_value<1>(v1, m1, rho, e_1, p, mu_limit, q.e_bottom_left);
  q.value[2] = sample_value<2>(v2, m2, rho, e_1, p, mu_limit, e_top);
  q.value[3] = sample_value<3>(v3, m3, rho, e_1, p, mu_limit, q.e_bottom_right);
  return q;
}

namespace vec {

using U32x4 = uint32_t __attribute__((vector_size(16)));
using U64x4 = uint64_t __attribute__((vector_size(32)));

// Per 4-bit pattern x, lane n: bit n of x, and the count of x's bits below n.
struct PatternTables {
  uint32_t bit[16][4];
  uint32_t below[16][4];
};
constexpr PatternTables make_pattern_tables() {
  PatternTables t{};
  for (int x = 0; x < 16; ++x) {
    for (int n = 0; n < 4; ++n) {
      t.bit[x][n] = static_cast<uint32_t>(x >> n & 1);
      t.below[x][n] = static_cast<uint32_t>(std::popcount(static_cast<unsigned>(x & ((1 << n) - 1))));
    }
  }
  return t;
}
inline constexpr PatternTables kPatterns = make_pattern_tables();

inline U32x4 load(const uint32_t (&lanes)[4]) {
  U32x4 v;
  std::memcpy(&v, lanes, sizeof v);
  return v;
}

}  // namespace vec

// A quad whose magnitudes cannot reach the clamp and whose bits fit one
// refill (sum of m_n <= 56): the four samples at once, written to top[0..1]
// and bottom[0..1] (`whole`: the quad has its right column; else top[0] and
// bottom[0] only). Returns the bottom samples'
// exponents as QuadValues does. With e_1 within e_k within rho (as in every
// codeword of Annex C's tables) v < 2^U_q, so mu <= 2^(U_q - 1): U_q <= K
// keeps it below the clamp 2^K.
struct BottomExponents {
  int left, right;
};
[[gnu::always_inline]] inline BottomExponents quad_values_unclamped(fast::ForwardReader& ms, int rho, int bound,
                                                                    int e_k, int e_1, int total, int p,
                                                                    int32_t* top, int32_t* bottom, bool whole) {
  using namespace vec;
  const U32x4 bound4 = U32x4{} + static_cast<uint32_t>(bound);
  const U32x4 m32 = bound4 * load(kPatterns.bit[rho]) - load(kPatterns.bit[e_k]);
  const U32x4 offset32 = bound4 * load(kPatterns.below[rho]) - load(kPatterns.below[e_k]);
  const U64x4 m = __builtin_convertvector(m32, U64x4);
  const U64x4 offset = __builtin_convertvector(offset32, U64x4);
  const U64x4 bits = U64x4{} + ms.bits();
  ms.advance(total);
  const U64x4 one = U64x4{} + uint64_t{1};
  const U64x4 raw = (bits >> offset) & ((one << m) - one);
  const U64x4 v = raw | __builtin_convertvector(load(kPatterns.bit[e_1]), U64x4) << m;
  // mu = (v >> 1) + 1 where significant (v is then 0 elsewhere: 0 out).
  const U64x4 mu = (v >> 1) + __builtin_convertvector(load(kPatterns.bit[rho]), U64x4);
  const U64x4 magnitude = mu << p;
  const U64x4 sign = v & one;
  // The low halves (the int32 values) in row order: top left, top right,
  // bottom left, bottom right.
  using U32x8 = uint32_t __attribute__((vector_size(32)));
  const auto lanes = reinterpret_cast<U32x8>((magnitude ^ (U64x4{} - sign)) + sign);
  const U32x4 rows = __builtin_shufflevector(lanes, lanes, 0, 4, 2, 6);
  if (whole) {
    std::memcpy(top, &rows, 8);
    std::memcpy(bottom, reinterpret_cast<const char*>(&rows) + 8, 8);
  } else {
    top[0] = static_cast<int32_t>(rows[0]);
    bottom[0] = static_cast<int32_t>(rows[2]);
  }
  return {(rho >> 1 & 1) * static_cast<int>(std::bit_width(v[1] | 1)),
          (rho >> 3 & 1) * static_cast<int>(std::bit_width(v[3] | 1))};
}

#if MALLAT_HT_X86
// Two whole quads side by side (columns x..x+3 of the rows `top` and
// `bottom`) whose bounds U_q are within K (no clamp, as above) and within
// 24 (each sample's bits, at most 24, fit 32 bits at any bit offset, and
// its v converts to float exactly): the eight samples at once in AVX2
// lanes, each taking its own bits from the destuffed stream at its offset,
// the offsets a prefix sum of the m_n in the stream's order (the first
// quad's samples, then the second's; each in rho's order). code: each
// quad's VLC entry (rho, e_k, e_1) in bits 0-15 and U_q in bits 24-31
// (the decoder's MagSgnRow::pair_code), 32 bytes readable; totals: each
// quad's sum of m_n. Writes the bottom samples' exponents to
// e_bottom[0..3] (left to right).
[[gnu::target(MALLAT_HT_AVX2_TARGET)]] inline void quad_pair_values_avx2(
    fast::ForwardReader& ms, const uint32_t* code, const int total[2], int p, int32_t* top,
    int32_t* bottom, uint8_t* e_bottom) {
  // Each quad's code in its four lanes; lane n of each quad (0..3): bit n
  // of rho, e_1 and e_k at bits 0, 4 and 8 of `fields`. Masks by shifts
  // (no constant to hold in a register): all ones where significant, and
  // where e_k; e_1 as 0 or 1.
  const __m256i quad_of_lane = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
  const __m256i inf =
      _mm256_permutevar8x32_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(code)), quad_of_lane);
  const __m256i fields = _mm256_srlv_epi32(inf, _mm256_setr_epi32(4, 5, 6, 7, 4, 5, 6, 7));
  const __m256i significant = _mm256_srai_epi32(_mm256_slli_epi32(fields, 31), 31);
  const __m256i e_k = _mm256_srai_epi32(_mm256_slli_epi32(fields, 23), 31);
  const __m256i e_1 = _mm256_srli_epi32(_mm256_slli_epi32(fields, 27), 31);
  const __m256i u = _mm256_srli_epi32(inf, 24);
  // m_n = U_q - e_k where significant, else 0 (Annex C.3.5).
  const __m256i m = _mm256_and_si256(_mm256_add_epi32(u, e_k), significant);
  // Each quad's bits lie in 16 bytes from the byte its first bit is in
  // (at most 7 + 4 * 24 bits): one load per quad into its 128-bit half.
  // A sample's bits start at its quad's bit within that first byte plus
  // the quad's m_n before it (an exclusive prefix sum within the half).
  const uint64_t start0 = ms.position(), start1 = start0 + static_cast<uint64_t>(total[0]);
  const __m256i window =
      _mm256_set_m128i(_mm_loadu_si128(reinterpret_cast<const __m128i*>(ms.flat() + ms.byte_at(start1))),
                       _mm_loadu_si128(reinterpret_cast<const __m128i*>(ms.flat() + ms.byte_at(start0))));
  __m256i inclusive = _mm256_add_epi32(m, _mm256_slli_si256(m, 4));
  inclusive = _mm256_add_epi32(inclusive, _mm256_slli_si256(inclusive, 8));
  const __m256i seven = _mm256_set1_epi32(7);
  const uint64_t starts = static_cast<uint32_t>(start0) | static_cast<uint64_t>(start1) << 32;
  const __m256i first_bit = _mm256_and_si256(
      _mm256_permutevar8x32_epi32(_mm256_castsi128_si256(_mm_cvtsi64_si128(static_cast<int64_t>(starts))), quad_of_lane),
      seven);
  const __m256i at = _mm256_add_epi32(_mm256_sub_epi32(inclusive, m), first_bit);
  // The 4 bytes from byte at >> 3 of the window, by a byte shuffle (its
  // indices' bit 4 is not read: the lanes alternate 0x03020100 and
  // 0x13121110 so that the constant is not a broadcast, which the
  // compiler would rebuild at every pair, but an operand in memory).
  const __m256i byte = _mm256_shuffle_epi8(_mm256_srli_epi32(at, 3), _mm256_setr_epi8(0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12,
                                                                                     0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12));
  const __m256i word = _mm256_shuffle_epi8(
      window, _mm256_add_epi32(byte, _mm256_setr_epi32(0x03020100, 0x13121110, 0x03020100, 0x13121110, 0x03020100,
                                                       0x13121110, 0x03020100, 0x13121110)));
  const __m256i ones = _mm256_cmpeq_epi32(m, m);
  const __m256i raw =
      _mm256_andnot_si256(_mm256_sllv_epi32(ones, m), _mm256_srlv_epi32(word, _mm256_and_si256(at, seven)));
  ms.advance(total[0] + total[1]);
  // v with e_1's bit at m_n (Annex C.3.6); mu = (v >> 1) + 1 where
  // significant (v is 0 elsewhere).
  const __m256i v = _mm256_or_si256(raw, _mm256_sllv_epi32(e_1, m));
  const __m256i magnitude = _mm256_sll_epi32(_mm256_sub_epi32(_mm256_srli_epi32(v, 1), significant), _mm_cvtsi32_si128(p));
  // The sign (v's bit 0) by psignd: a lane whose top bit is set negates
  // (v | 1 is not 0, and v < 2^24). The even lanes' exponents are not
  // kept (below): those lanes take v | 3 (5, 7, 9), so that the constant is an
  // operand in memory, as above.
  const __m256i v_or_1 = _mm256_or_si256(v, _mm256_setr_epi32(3, 1, 5, 1, 7, 1, 9, 1));
  const __m256i value = _mm256_sign_epi32(magnitude, _mm256_or_si256(_mm256_slli_epi32(v, 31), v_or_1));
  // Exponents bit_width(v | 1) from the float's exponent (v < 2^24 is
  // exact), 0 where insignificant.
  // Only the bottom samples' (odd lanes) are kept: the even lanes' bias is
  // 0 so that the constant is an operand in memory, as above.
  const __m256i exponent = _mm256_and_si256(
      _mm256_add_epi32(_mm256_srli_epi32(_mm256_castps_si256(_mm256_cvtepi32_ps(v_or_1)), 23),
                       _mm256_setr_epi32(0, -126, 0, -126, 0, -126, 0, -126)),
      significant);
  // Row order: top left, top right of each quad, then the bottom samples.
  const __m256i to_rows = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
  const __m256i rows = _mm256_permutevar8x32_epi32(value, to_rows);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(top), _mm256_castsi256_si128(rows));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(bottom), _mm256_extracti128_si256(rows, 1));
  const __m128i bottom_e = _mm256_extracti128_si256(_mm256_permutevar8x32_epi32(exponent, to_rows), 1);
  const int packed = _mm_cvtsi128_si32(_mm_shuffle_epi8(bottom_e, _mm_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1,
                                                                                 -1, -1, -1, -1, -1, -1)));
  std::memcpy(e_bottom, &packed, 4);
}
#endif

}  // namespace mallat::entropy::ht
