// The HT cleanup kernels for AVX-512 (F, CD, BW, VL, on top of the AVX2
// build's set; through the target attribute, used only where the CPU
// reports them all): the encoder measures eight quads (sixteen columns of a
// row pair) at once, with the lanes' leading zero counts and mask
// registers. It decodes with the AVX2 build's decoder: built for AVX-512,
// the same source's VLC pass loses its reader's state to memory in the
// serial chain of look-ups (fewer registers left beside the wider MagSgn
// steps).
#include "entropy/ht/cpu/cleanup_kernels.h"

#if MALLAT_HT_X86
// GCC 12's AVX-512 intrinsics start their results from an undefined vector
// (_mm512_undefined_epi32), which its -Wmaybe-uninitialized takes for a use
// of an uninitialised value.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#define MALLAT_HT_ISA avx512
#define MALLAT_HT_ISA_NAME "avx512"
#define MALLAT_HT_KERNEL [[gnu::target(MALLAT_HT_AVX512_TARGET)]]
#define MALLAT_HT_DECODER ::mallat::entropy::ht::cpu::avx2::decode

#include "entropy/ht/cpu/cleanup_encoder_kernel.h"

namespace mallat::entropy::ht::cpu::avx512 {

// Sixteen samples of one row at `shift` (Annex C.3.1, C.3.5): v = 2 (mu - 1)
// + sign and E = bit width of 2 mu - 1, both 0 where insignificant.
struct Lanes {
  __m512i v, e;
  __mmask16 significant;
};
[[gnu::target(MALLAT_HT_AVX512_TARGET), gnu::always_inline]] inline Lanes measure_lanes(__m512i s, __m128i shift) {
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i mu = _mm512_srl_epi32(_mm512_abs_epi32(s), shift);
  const __mmask16 significant = _mm512_test_epi32_mask(mu, mu);
  const __m512i v = _mm512_maskz_or_epi32(significant, _mm512_slli_epi32(_mm512_sub_epi32(mu, one), 1),
                                          _mm512_srli_epi32(s, 31));
  const __m512i twice_less_one = _mm512_sub_epi32(_mm512_add_epi32(mu, mu), one);
  const __m512i e = _mm512_maskz_sub_epi32(significant, _mm512_set1_epi32(32), _mm512_lzcnt_epi32(twice_less_one));
  return {v, e, significant};
}

// Lanes of the top and bottom rows (columns x..x+15) in quad order: quads
// 0..3 (each top left, bottom left, top right, bottom right), then 4..7.
[[gnu::target(MALLAT_HT_AVX512_TARGET), gnu::always_inline]] inline void to_quads(__m512i top, __m512i bottom,
                                                                                 __m512i& q0123, __m512i& q4567) {
  const __m512i low = _mm512_unpacklo_epi32(top, bottom);   // quads 0 2 4 6
  const __m512i high = _mm512_unpackhi_epi32(top, bottom);  // quads 1 3 5 7
  q0123 = _mm512_permutex2var_epi64(low, _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11), high);
  q4567 = _mm512_permutex2var_epi64(low, _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15), high);
}

// Each quad's largest exponent in all four of its lanes.
[[gnu::target(MALLAT_HT_AVX512_TARGET), gnu::always_inline]] inline __m512i largest(__m512i e) {
  e = _mm512_max_epu32(e, _mm512_shuffle_epi32(e, _MM_PERM_CDAB));
  return _mm512_max_epu32(e, _mm512_shuffle_epi32(e, _MM_PERM_BADC));
}

// Lanes 4 j..4 j + 3 of `x` (a value per quad), each in the four lanes of
// its 128 bits (one sample per lane).
[[gnu::target(MALLAT_HT_AVX512_TARGET), gnu::always_inline]] inline __m512i per_sample(__m512i x, int j) {
  const __m512i spread = _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
  return _mm512_permutexvar_epi32(_mm512_add_epi32(spread, _mm512_set1_epi32(4 * j)), x);
}

// Bytes p[0..15] (those of mask k; 0 elsewhere) in 32-bit lanes.
[[gnu::target(MALLAT_HT_AVX512_TARGET), gnu::always_inline]] inline __m512i widen_bytes(__mmask16 k, const uint8_t* p) {
  return _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(k, p));
}

// Lanes idx[0..7] of the pair (a, b), then of the pair (c, d).
[[gnu::target(MALLAT_HT_AVX512_TARGET), gnu::always_inline]] inline __m512i gather16(__m512i a, __m512i b, __m512i c,
                                                                                   __m512i d, __m512i idx) {
  const __m512i low = _mm512_permutex2var_epi32(a, idx, b), high = _mm512_permutex2var_epi32(c, idx, d);
  return _mm512_inserti64x4(low, _mm512_castsi512_si256(high), 1);
}

struct Steps {
  static constexpr bool kRowCodes = true;

  [[gnu::target(MALLAT_HT_AVX512_TARGET)]] static int64_t measure_quads(
      const int32_t* top, const int32_t* bottom, int64_t quads, int shift, const MeasuredQuads& m) {
    const __m128i count = _mm_cvtsi32_si128(shift);
    int64_t q = 0;
    for (; q + 8 <= quads; q += 8) {
      const int64_t x = 2 * q;
      const Lanes t = measure_lanes(_mm512_loadu_si512(top + x), count);
      const Lanes b = measure_lanes(_mm512_loadu_si512(bottom + x), count);
      // The bottom row's exponents per column, for the next row's kappa.
      _mm_storeu_si128(reinterpret_cast<__m128i*>(m.e_bottom + x), _mm512_cvtepi32_epi8(b.e));
      // rho: the top row's significance at even bits, the bottom's at odd,
      // a nibble per quad, then a byte per quad (pdep).
      const uint64_t nibbles = _pdep_u32(t.significant, 0x55555555u) | _pdep_u32(b.significant, 0xAAAAAAAAu);
      const uint64_t rho = _pdep_u64(nibbles, 0x0F0F0F0F0F0F0F0Full);
      std::memcpy(m.rho + q, &rho, 8);
      __m512i v0123, v4567, e0123, e4567;
      to_quads(t.v, b.v, v0123, v4567);
      to_quads(t.e, b.e, e0123, e4567);
      _mm512_storeu_si512(m.v + 4 * q, v0123);
      _mm512_storeu_si512(m.v + 4 * q + 16, v4567);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(m.e + 4 * q), _mm512_cvtepi32_epi8(e0123));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(m.e + 4 * q + 16), _mm512_cvtepi32_epi8(e4567));
      // Each quad's largest exponent, lane 0 of each quad's.
      const __m512i most = _mm512_permutex2var_epi32(
          largest(e0123), _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 0, 0, 0, 0, 0, 0, 0, 0), largest(e4567));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(m.e_max + q), _mm512_cvtepi32_epi8(most));
    }
    return q;
  }

  // Sixteen quads at a time, a quad per lane (Annex C.3): c_q from the
  // quad to the left and the row above, kappa_q, U_q = max(E_max, kappa_q),
  // u_q, the EMB pattern (samples whose E is U_q, where u_q > 0), the
  // table entry by a gather, and the MagSgn bits, m_n = U_q - e_k[n] of each
  // significant sample, packed per quad (a quad per 128 bits).
  [[gnu::target(MALLAT_HT_AVX512_TARGET)]] static int64_t code_row(bool initial, int64_t quads,
                                                                 const uint8_t* context_above,
                                                                 const uint8_t* kappa_above, const MeasuredQuads& m,
                                                                 const RowCodes& out) {
    const uint32_t* table = wide_encode_tables() + (initial ? 0 : 8 * 256);
    const __m512i one = _mm512_set1_epi32(1), zero = _mm512_setzero_si512();
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3);
    for (int64_t q = 0; q < quads; q += 16) {
      const int64_t n = std::min<int64_t>(16, quads - q);
      const auto k = static_cast<__mmask16>((1u << n) - 1);
      const __mmask64 k64 = n == 16 ? ~__mmask64{0} : (__mmask64{1} << (4 * n)) - 1;
      const __m512i rho = widen_bytes(k, m.rho + q);
      const __m512i left = widen_bytes(k, m.rho + q - 1);
      __m512i context, kappa = one;
      if (initial) {
        context = _mm512_or_si512(_mm512_and_si512(_mm512_or_si512(left, _mm512_srli_epi32(left, 1)), one),
                                  _mm512_and_si512(_mm512_srli_epi32(left, 1), _mm512_set1_epi32(6)));
      } else {
        const __m512i w_sw = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi32(left, 2), _mm512_srli_epi32(left, 3)), one);
        context = _mm512_or_si512(widen_bytes(k, context_above + q), _mm512_slli_epi32(w_sw, 1));
        // Two or more significant samples: kappa from the row above.
        const __mmask16 many = _mm512_test_epi32_mask(rho, _mm512_sub_epi32(rho, one));
        kappa = _mm512_mask_blend_epi32(many, one, widen_bytes(k, kappa_above + q));
      }
      const __m512i bound = _mm512_max_epi32(widen_bytes(k, m.e_max + q), kappa);
      const __m512i u = _mm512_sub_epi32(bound, kappa);
      // EMB: each quad's exponent bytes against U_q, a bit per sample.
      const __mmask64 at_bound = _mm512_mask_cmpeq_epi8_mask(
          k64, _mm512_maskz_loadu_epi8(k64, m.e + 4 * q), _mm512_mullo_epi32(bound, _mm512_set1_epi32(0x01010101)));
      const __m512i emb_bits = _mm512_and_si512(_mm512_movm_epi8(at_bound), _mm512_set1_epi32(0x08040201));
      const __m512i emb = _mm512_maskz_srli_epi32(_mm512_test_epi32_mask(u, u),
                                                  _mm512_mullo_epi32(emb_bits, _mm512_set1_epi32(0x01010101)), 24);
      const __m512i index = _mm512_or_si512(
          _mm512_or_si512(_mm512_slli_epi32(_mm512_and_si512(context, _mm512_set1_epi32(7)), 8),
                          _mm512_slli_epi32(_mm512_and_si512(rho, _mm512_set1_epi32(15)), 4)),
          emb);
      const __m512i entry = _mm512_mask_i32gather_epi32(zero, k, index, table, 4);
      _mm_mask_storeu_epi8(out.context + q, k, _mm512_cvtepi32_epi8(context));
      _mm256_mask_storeu_epi16(out.entry + q, k, _mm512_cvtepi32_epi16(entry));
      _mm_mask_storeu_epi8(out.u + q, k, _mm512_cvtepi32_epi8(u));
      _mm_mask_storeu_epi8(out.bound + q, k, _mm512_cvtepi32_epi8(bound));
      // MagSgn, four quads (16 samples) at a time: each sample's low m_n
      // bits of v at the quad's m before it, or-ed within the quad.
      const __m512i e_k = _mm512_and_si512(entry, _mm512_set1_epi32(15));
      __m512i packed[4], length[4];
      for (int j = 0; j < 4; ++j) {
        const __m512i rho_n = _mm512_and_si512(_mm512_srlv_epi32(per_sample(rho, j), lane), one);
        const __m512i e_k_n = _mm512_and_si512(_mm512_srlv_epi32(per_sample(e_k, j), lane), one);
        const __m512i bits_n = _mm512_maskz_sub_epi32(_mm512_test_epi32_mask(rho_n, rho_n), per_sample(bound, j), e_k_n);
        const int64_t in_part = std::clamp<int64_t>(n - 4 * j, 0, 4);
        const auto kv = static_cast<__mmask16>((1u << (4 * in_part)) - 1);
        const __m512i v = _mm512_and_si512(_mm512_maskz_loadu_epi32(kv, m.v + 4 * (q + 4 * j)),
                                           _mm512_sub_epi32(_mm512_sllv_epi32(one, bits_n), one));
        __m512i inclusive = _mm512_add_epi32(bits_n, _mm512_bslli_epi128(bits_n, 4));
        inclusive = _mm512_add_epi32(inclusive, _mm512_bslli_epi128(inclusive, 8));
        __m512i word = _mm512_sllv_epi32(v, _mm512_sub_epi32(inclusive, bits_n));
        word = _mm512_or_si512(word, _mm512_shuffle_epi32(word, _MM_PERM_CDAB));
        packed[j] = _mm512_or_si512(word, _mm512_shuffle_epi32(word, _MM_PERM_BADC));
        length[j] = inclusive;  // lane 3 of each quad: its sum of m_n
      }
      // Lane 0 (bits) and lane 3 (length) of each quad, the sixteen quads in order.
      const __m512i first = _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 0, 0, 0, 0, 0, 0, 0, 0);
      const __m512i last = _mm512_setr_epi32(3, 7, 11, 15, 19, 23, 27, 31, 0, 0, 0, 0, 0, 0, 0, 0);
      _mm512_mask_storeu_epi32(out.ms_bits + q, k, gather16(packed[0], packed[1], packed[2], packed[3], first));
      _mm_mask_storeu_epi8(out.ms_length + q, k,
                           _mm512_cvtepi32_epi8(gather16(length[0], length[1], length[2], length[3], last)));
    }
    return quads;
  }
};

}  // namespace mallat::entropy::ht::cpu::avx512

#include "entropy/ht/cpu/cleanup_kernels_isa.h"

#endif
