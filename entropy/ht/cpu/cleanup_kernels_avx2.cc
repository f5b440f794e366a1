// The HT cleanup kernels for AVX2 with BMI1/BMI2, LZCNT and POPCNT (through
// the target attribute; used only where the CPU reports them all): the
// encoder measures four quads (eight columns of a row pair) at once and
// codes eight at once ahead of the streams, the decoder reconstructs two quads' eight samples at once
// (quad_pair_values_avx2, entropy/ht/magsgn_quad.h).
#include "entropy/ht/cpu/cleanup_kernels.h"

#if MALLAT_HT_X86
#include <immintrin.h>

#include <cstdint>

#include "entropy/ht/magsgn_quad.h"

#define MALLAT_HT_ISA avx2
#define MALLAT_HT_ISA_NAME "avx2"
#define MALLAT_HT_KERNEL [[gnu::target(MALLAT_HT_AVX2_TARGET)]]

#include "entropy/ht/cpu/cleanup_encoder_kernel.h"

namespace mallat::entropy::ht::cpu::avx2 {

// Eight samples of one row at `shift` (Annex C.3.1, C.3.5): v = 2 (mu - 1)
// + sign and E = bit width of 2 mu - 1 = bit width of mu - 1, plus 1, both
// 0 where insignificant (significant: all ones there). The bit width comes
// from the exponent of mu - 1 as a float with the bit below its top one
// cleared, so that rounding to 24 bits cannot carry into the next power.
struct Lanes {
  __m256i v, e, significant;
};
[[gnu::target(MALLAT_HT_AVX2_TARGET), gnu::always_inline]] inline Lanes measure_lanes(__m256i s, __m128i shift) {
  const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1);
  const __m256i mu = _mm256_srl_epi32(_mm256_abs_epi32(s), shift);
  const __m256i significant = _mm256_cmpgt_epi32(mu, zero);
  const __m256i below = _mm256_sub_epi32(mu, one);
  const __m256i v = _mm256_or_si256(_mm256_slli_epi32(below, 1), _mm256_srli_epi32(s, 31));
  const __m256i top_bit = _mm256_andnot_si256(_mm256_srli_epi32(below, 1), below);
  const __m256i biased = _mm256_srli_epi32(_mm256_castps_si256(_mm256_cvtepi32_ps(top_bit)), 23);
  const __m256i e = _mm256_add_epi32(_mm256_max_epi32(_mm256_sub_epi32(biased, _mm256_set1_epi32(126)), zero), one);
  return {_mm256_and_si256(v, significant), _mm256_and_si256(e, significant), significant};
}

// Lanes of the top and bottom rows (columns x..x+7) in quad order: quads
// 0 and 1 (each top left, bottom left, top right, bottom right), then 2 and 3.
[[gnu::target(MALLAT_HT_AVX2_TARGET), gnu::always_inline]] inline void to_quads(__m256i top, __m256i bottom,
                                                                               __m256i& q01, __m256i& q23) {
  const __m256i low = _mm256_unpacklo_epi32(top, bottom);   // quads 0 | 2
  const __m256i high = _mm256_unpackhi_epi32(top, bottom);  // quads 1 | 3
  q01 = _mm256_permute2x128_si256(low, high, 0x20);
  q23 = _mm256_permute2x128_si256(low, high, 0x31);
}

// Bytes p[0..7] in 32-bit lanes.
[[gnu::target(MALLAT_HT_AVX2_TARGET), gnu::always_inline]] inline __m256i widen_bytes(const uint8_t* p) {
  return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
}

// The low bytes of the eight lanes, stored to p[0..7].
[[gnu::target(MALLAT_HT_AVX2_TARGET), gnu::always_inline]] inline void store_low_bytes(__m256i x, uint8_t* p) {
  const __m256i low = _mm256_shuffle_epi8(x, _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                                              -1, 0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                                              -1, -1));
  const uint64_t bytes = static_cast<uint32_t>(_mm256_cvtsi256_si32(low)) |
                         static_cast<uint64_t>(static_cast<uint32_t>(_mm256_extract_epi32(low, 4))) << 32;
  std::memcpy(p, &bytes, 8);
}

// Lane 0 of each 128 bits of a, b, c, d (quads 0, 1 of a; 2, 3 of b; ...) in order.
[[gnu::target(MALLAT_HT_AVX2_TARGET), gnu::always_inline]] inline __m256i first_lanes(__m256i a, __m256i b, __m256i c,
                                                                                    __m256i d) {
  const __m256i ab = _mm256_unpacklo_epi32(a, b);  // quads 0 2 . . | 1 3 . .
  const __m256i cd = _mm256_unpacklo_epi32(c, d);  // quads 4 6 . . | 5 7 . .
  return _mm256_permutevar8x32_epi32(_mm256_unpacklo_epi64(ab, cd), _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

struct Steps {
  static constexpr bool kVector = true, kPairs = true, kRowCodes = true, kBitDeposit = true;

  // BMI2's bit deposit (the decoder's UVLC, UvlcDeposits).
  [[gnu::target(MALLAT_HT_AVX2_TARGET)]] static uint64_t deposit(uint64_t bits, uint64_t mask) {
    return _pdep_u64(bits, mask);
  }

  [[gnu::target(MALLAT_HT_AVX2_TARGET)]] static int64_t measure_quads(
      const int32_t* top, const int32_t* bottom, int64_t quads, int shift, const MeasuredQuads& m) {
    const __m128i count = _mm_cvtsi32_si128(shift);
    const __m256i bytes_of_words = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0,
                                                    4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    int64_t q = 0;
    for (; q + 4 <= quads; q += 4) {
      const int64_t x = 2 * q;
      const Lanes t = measure_lanes(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(top + x)), count);
      const Lanes b = measure_lanes(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(bottom + x)), count);
      // The bottom row's exponents per column, for the next row's kappa.
      const __m256i e_bottom = _mm256_shuffle_epi8(b.e, bytes_of_words);
      const uint64_t e_bottom8 = static_cast<uint32_t>(_mm256_cvtsi256_si32(e_bottom)) |
                                 static_cast<uint64_t>(static_cast<uint32_t>(_mm256_extract_epi32(e_bottom, 4))) << 32;
      std::memcpy(m.e_bottom + x, &e_bottom8, 8);
      // rho: the top row's significance at even bits, the bottom's at odd,
      // a nibble per quad, then a byte per quad (pdep).
      const auto top_bits = static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(t.significant)));
      const auto bottom_bits = static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(b.significant)));
      const uint32_t nibbles = _pdep_u32(top_bits, 0x5555u) | _pdep_u32(bottom_bits, 0xAAAAu);
      const uint32_t rho = _pdep_u32(nibbles, 0x0F0F0F0Fu);
      std::memcpy(m.rho + q, &rho, 4);
      __m256i v01, v23, e01, e23;
      to_quads(t.v, b.v, v01, v23);
      to_quads(t.e, b.e, e01, e23);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(m.v + 4 * q), v01);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(m.v + 4 * q + 8), v23);
      // Exponents (at most 32) to bytes: quads 0 2 0 2 | 1 3 1 3, then in order.
      const __m256i e16 = _mm256_packus_epi32(e01, e23);
      const __m256i e8 = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(e16, e16), _mm256_setr_epi32(0, 4, 1, 5, 0, 4, 1, 5));
      const __m128i e = _mm256_castsi256_si128(e8);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(m.e + 4 * q), e);
      // Each quad's largest exponent: the largest byte of each 32-bit lane.
      __m128i most = _mm_max_epu8(e, _mm_srli_epi32(e, 16));
      most = _mm_max_epu8(most, _mm_srli_epi32(most, 8));
      const int e_max = _mm_cvtsi128_si32(_mm_shuffle_epi8(most, _mm_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1,
                                                                                -1, -1, -1, -1, -1, -1)));
      std::memcpy(m.e_max + q, &e_max, 4);
    }
    return q;
  }

  // Eight quads at a time, a quad per lane (Annex C.3), as the AVX-512
  // build's code_row: c_q, kappa_q, U_q, u_q, EMB, the table entry by a
  // gather, and each quad's MagSgn bits packed in its 128 bits. Whole
  // groups of eight only (the loads read eight quads' bytes).
  [[gnu::target(MALLAT_HT_AVX2_TARGET)]] static int64_t code_row(bool initial, int64_t quads,
                                                               const uint8_t* context_above,
                                                               const uint8_t* kappa_above, const MeasuredQuads& m,
                                                               const RowCodes& out) {
    const auto* table = reinterpret_cast<const int*>(wide_encode_tables() + (initial ? 0 : 8 * 256));
    const __m256i one = _mm256_set1_epi32(1), zero = _mm256_setzero_si256();
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 0, 1, 2, 3);
    int64_t q = 0;
    for (; q + 8 <= quads; q += 8) {
      const __m256i rho = widen_bytes(m.rho + q);
      const __m256i left = widen_bytes(m.rho + q - 1);
      __m256i context, kappa = one;
      if (initial) {
        context = _mm256_or_si256(_mm256_and_si256(_mm256_or_si256(left, _mm256_srli_epi32(left, 1)), one),
                                  _mm256_and_si256(_mm256_srli_epi32(left, 1), _mm256_set1_epi32(6)));
      } else {
        const __m256i w_sw =
            _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi32(left, 2), _mm256_srli_epi32(left, 3)), one);
        context = _mm256_or_si256(widen_bytes(context_above + q), _mm256_slli_epi32(w_sw, 1));
        // Two or more significant samples: kappa from the row above.
        const __m256i one_or_none = _mm256_cmpeq_epi32(_mm256_and_si256(rho, _mm256_sub_epi32(rho, one)), zero);
        kappa = _mm256_blendv_epi8(widen_bytes(kappa_above + q), one, one_or_none);
      }
      const __m256i bound = _mm256_max_epi32(widen_bytes(m.e_max + q), kappa);
      const __m256i u = _mm256_sub_epi32(bound, kappa);
      // EMB: each quad's exponent bytes against U_q, a bit per sample.
      const __m256i at_bound = _mm256_cmpeq_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(m.e + 4 * q)),
                                                 _mm256_mullo_epi32(bound, _mm256_set1_epi32(0x01010101)));
      const __m256i emb_bits = _mm256_and_si256(at_bound, _mm256_set1_epi32(0x08040201));
      const __m256i emb = _mm256_andnot_si256(
          _mm256_cmpeq_epi32(u, zero), _mm256_srli_epi32(_mm256_mullo_epi32(emb_bits, _mm256_set1_epi32(0x01010101)), 24));
      const __m256i index =
          _mm256_or_si256(_mm256_or_si256(_mm256_slli_epi32(context, 8), _mm256_slli_epi32(rho, 4)), emb);
      const __m256i entry = _mm256_i32gather_epi32(table, index, 4);
      store_low_bytes(context, out.context + q);
      const __m256i entry16 = _mm256_permute4x64_epi64(_mm256_packus_epi32(entry, entry), 0x08);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out.entry + q), _mm256_castsi256_si128(entry16));
      store_low_bytes(u, out.u + q);
      store_low_bytes(bound, out.bound + q);
      // MagSgn, two quads (8 samples) at a time: each sample's low m_n bits
      // of v at the quad's m before it, or-ed within the quad.
      const __m256i e_k = _mm256_and_si256(entry, _mm256_set1_epi32(15));
      __m256i packed[4], length[4];
      for (int j = 0; j < 4; ++j) {
        const __m256i spread = _mm256_setr_epi32(2 * j, 2 * j, 2 * j, 2 * j, 2 * j + 1, 2 * j + 1, 2 * j + 1, 2 * j + 1);
        const __m256i rho_n = _mm256_and_si256(_mm256_srlv_epi32(_mm256_permutevar8x32_epi32(rho, spread), lane), one);
        const __m256i e_k_n = _mm256_and_si256(_mm256_srlv_epi32(_mm256_permutevar8x32_epi32(e_k, spread), lane), one);
        const __m256i bits_n = _mm256_and_si256(_mm256_sub_epi32(_mm256_permutevar8x32_epi32(bound, spread), e_k_n),
                                                _mm256_sub_epi32(zero, rho_n));
        const __m256i v = _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(m.v + 4 * (q + 2 * j))),
                                           _mm256_sub_epi32(_mm256_sllv_epi32(one, bits_n), one));
        __m256i inclusive = _mm256_add_epi32(bits_n, _mm256_slli_si256(bits_n, 4));
        inclusive = _mm256_add_epi32(inclusive, _mm256_slli_si256(inclusive, 8));
        __m256i word = _mm256_sllv_epi32(v, _mm256_sub_epi32(inclusive, bits_n));
        word = _mm256_or_si256(word, _mm256_shuffle_epi32(word, 0xB1));
        packed[j] = _mm256_or_si256(word, _mm256_shuffle_epi32(word, 0x4E));
        length[j] = _mm256_shuffle_epi32(inclusive, 0xFF);  // each quad's sum of m_n
      }
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out.ms_bits + q),
                          first_lanes(packed[0], packed[1], packed[2], packed[3]));
      store_low_bytes(first_lanes(length[0], length[1], length[2], length[3]), out.ms_length + q);
    }
    return q;
  }

  [[gnu::target(MALLAT_HT_AVX2_TARGET)]] static void quad_pair_values(
      fast::ForwardReader& ms, const uint32_t* code, const int total[2], int p, int32_t* top, int32_t* bottom,
      uint8_t* e_bottom) {
    quad_pair_values_avx2(ms, code, total, p, top, bottom, e_bottom);
  }
};

}  // namespace mallat::entropy::ht::cpu::avx2

#include "entropy/ht/cpu/cleanup_kernels_isa.h"

#endif
