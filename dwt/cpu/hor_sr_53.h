// HOR_SR of the reversible 5/3 (15444-1 F.3.4, the steps of F.3.8.1 with the
// extension of F.3.7) in one pass over the row: each output pair, low-pass
// then high-pass sample, is computed from the band samples where they lie and
// stored interleaved. lifting.h's inverse_row_apart (two lifting loops, then a
// stride-2 interleave) is the reference it equals bit for bit
// (tests/dwt/hor_sr_53_test.cc); with AVX2, eight pairs a step.
#pragma once

#include <algorithm>
#include <cstdint>

#include "dwt/cpu/lifting.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#ifndef MALLAT_DWT_ISA
#error "include the CPU kernels through dwt/cpu/isa_kernels.h, which names the instruction set"
#endif

namespace mallat::dwt::cpu::MALLAT_DWT_ISA {

// Low-pass sample k after its step, neighbours beyond either end mirrored as
// lift_line mirrors them (clamp_index: B[-1] = B[0], B[nb] = B[nb - 1]).
template <typename W>
inline int32_t synthesised_low(const int32_t* s, const int32_t* d, const Split& sp, int64_t k) {
  const int o = sp.s_offset();
  return W::inverse_s(s[k], d[clamp_index(k - 1 + o, sp.dn)], d[clamp_index(k + o, sp.dn)]);
}

// High-pass sample k after both steps: its low-pass neighbours after theirs.
template <typename W>
inline int32_t synthesised_high(const int32_t* s, const int32_t* d, const Split& sp, int64_t k) {
  const int o = sp.d_offset();
  return W::inverse_d(d[k], synthesised_low<W>(s, d, sp, clamp_index(k - 1 + o, sp.sn)),
                      synthesised_low<W>(s, d, sp, clamp_index(k + o, sp.sn)));
}

// Samples [j0, j1) of the row, one at a time: the row's ends, where the
// extension applies, and rows too short for the vector loop.
template <typename W>
inline void synthesise_samples(const int32_t* s, const int32_t* d, int32_t* row, const Split& sp, int64_t j0,
                               int64_t j1) {
  for (int64_t j = j0; j < j1; ++j) {
    // Sample j lies at coordinate i0 + j: high-pass where that is odd; either
    // way it is sample j / 2 of its band.
    const bool high = ((j & 1) != 0) != sp.odd_first;
    row[j] = high ? synthesised_high<W>(s, d, sp, j / 2) : synthesised_low<W>(s, d, sp, j / 2);
  }
}

#if defined(__AVX2__)
// Pair k of the row from its first low-pass sample (row + 1 when the row
// starts with a high-pass one) is low-pass sample k and the high-pass sample
// after it, dt[k] with dt = d + odd. Both parities then read the same
// neighbours: low k needs dt[k - 1], dt[k]; high k needs lows k and k + 1.
// Pairs whose neighbours all lie inside the bands need no extension; the
// vector loop takes eight of those at a time, the rest go one sample at a time.
// This computes samples [j0, j1) of the row only (each sample's value does
// not depend on which others are computed with it), so that a caller can
// work on a row a cache-resident span of columns at a time.
// s and d are only read.
template <typename W>
void hor_sr_53_avx2_span(const int32_t* s, const int32_t* d, int32_t* row, const Split& sp, int64_t j0,
                         int64_t j1) {
  const int64_t odd = sp.odd_first ? 1 : 0;
  const int32_t* dt = d + odd;
  int32_t* out = row + odd;
  const int64_t first = 1 - odd;  // dt[first - 1] is d[0]
  const int64_t end = std::min(sp.sn - 1, sp.dn - odd - 1);  // s[k + 1] and dt[k + 1] exist below it
  // The pairs wholly inside [j0, j1): odd + 2k >= j0 and odd + 2k + 1 < j1.
  const int64_t k0 = std::max(first, (j0 - odd + 1) / 2);
  const int64_t k1 = std::min(end, (j1 - odd) / 2);
  const __m256i two = _mm256_set1_epi32(2);
  auto load = [](const int32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); };
  int64_t k = k0;
  for (; k + 8 <= k1; k += 8) {
    // The band rows come from buffers of a whole code-block row, mostly out
    // of L2 by now: asked for 2 KiB ahead, they arrive in time (a prefetch
    // past the row's end is harmless). 3840x2048 HT decode, one thread:
    // this function's share of the samples 8.7% to 7.7%; 512 bytes ahead
    // made no difference.
    _mm_prefetch(reinterpret_cast<const char*>(dt + k + 512), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(s + k + 512), _MM_HINT_T0);
    const __m256i dm = load(dt + k - 1), d0 = load(dt + k), d1 = load(dt + k + 1);
    // F.3.8.1 step 1 on lows k..k+7 and k+1..k+8: s - floor((d- + d+ + 2) / 4).
    const __m256i lo0 = _mm256_sub_epi32(load(s + k), _mm256_srai_epi32(_mm256_add_epi32(_mm256_add_epi32(dm, d0), two), 2));
    const __m256i lo1 =
        _mm256_sub_epi32(load(s + k + 1), _mm256_srai_epi32(_mm256_add_epi32(_mm256_add_epi32(d0, d1), two), 2));
    // Step 2 on highs k..k+7: d + floor((s- + s+) / 2).
    const __m256i hi = _mm256_add_epi32(d0, _mm256_srai_epi32(_mm256_add_epi32(lo0, lo1), 1));
    // Interleave: unpack pairs within each 128-bit half, then put the halves in order.
    const __m256i a = _mm256_unpacklo_epi32(lo0, hi), b = _mm256_unpackhi_epi32(lo0, hi);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 2 * k), _mm256_permute2x128_si256(a, b, 0x20));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 2 * k + 8), _mm256_permute2x128_si256(a, b, 0x31));
  }
  synthesise_samples<W>(s, d, row, sp, j0, std::min(j1, odd + 2 * k0));
  synthesise_samples<W>(s, d, row, sp, std::max(j0, odd + 2 * k), j1);
}

// The whole row.
template <typename W>
void hor_sr_53_avx2(const int32_t* s, const int32_t* d, int32_t* row, const Split& sp) {
  hor_sr_53_avx2_span<W>(s, d, row, sp, 0, sp.sn + sp.dn);
}
#endif

}  // namespace mallat::dwt::cpu::MALLAT_DWT_ISA
