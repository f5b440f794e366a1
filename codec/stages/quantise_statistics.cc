#include "codec/stages/quantise_statistics.h"

#include "entropy/ht/plane_counts.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace mallat::codec {

#if defined(__x86_64__)
namespace {

using entropy::detail::ExactCounts;

// quant::DeadZoneRule in eight lanes.
struct LaneRule {
  __m256 magnitude_bits, inverse, ceiling, below_ceiling, fine;
  __m256i limit;
};

[[gnu::target("avx2")]] LaneRule lane_rule(const quant::DeadZoneRule& r) {
  return {_mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff)),
          _mm256_set1_ps(r.inverse),
          _mm256_set1_ps(r.ceiling),
          _mm256_set1_ps(r.below_ceiling),
          _mm256_set1_ps(r.fine),
          _mm256_set1_epi32(r.limit)};
}

// A row's running sums: its energy in quant::dead_zone_energy_lanes' eight
// lanes (lane k the samples x = k mod 8 of the whole groups of eight, in
// order) and its clipped samples (as negative counts).
struct RowSums {
  __m256 energy;
  __m256i clipped;
};

// Eight coefficients from `from` to their indices at `to`, as
// quant::dead_zone_value (the rule's operations in its order, no fused
// products: this is built for AVX2 without FMA); returns the indices'
// magnitudes, what the statistics count.
[[gnu::target("avx2")]] inline __m256i quantise8(const float* from, int32_t* to, const LaneRule& r, RowSums& sums) {
  const __m256 y = _mm256_loadu_ps(from);
  const __m256 scaled = _mm256_mul_ps(_mm256_and_ps(y, r.magnitude_bits), r.inverse);
  // !(scaled < ceiling): NaN included.
  const __m256i over = _mm256_castps_si256(_mm256_cmp_ps(scaled, r.ceiling, _CMP_NLT_UQ));
  // min(scaled, below_ceiling) as `scaled < below_ceiling ? scaled : below_ceiling`.
  const __m256 kept = _mm256_min_ps(scaled, r.below_ceiling);
  const __m256i m = _mm256_or_si256(_mm256_andnot_si256(over, _mm256_cvttps_epi32(_mm256_mul_ps(kept, r.fine))),
                                    _mm256_and_si256(r.limit, over));
  const __m256i negative = _mm256_srai_epi32(_mm256_castps_si256(y), 31);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(to), _mm256_sub_epi32(_mm256_xor_si256(m, negative), negative));
  sums.energy = _mm256_add_ps(sums.energy, _mm256_mul_ps(scaled, scaled));
  sums.clipped = _mm256_add_epi32(sums.clipped, over);
  return m;
}

// Row `from`'s samples from column x on, to `to`: the groups of eight, then
// one at a time with the energy in lane 0 (the plain rule).
[[gnu::target("avx2")]] void quantise_rest(const float* from, int32_t* to, int64_t x, int64_t width,
                                           const quant::DeadZoneRule& rule, const LaneRule& r, RowSums& sums) {
  for (; x + 8 <= width; x += 8) quantise8(from + x, to + x, r, sums);
  if (x == width) return;
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, sums.energy);
  int32_t clipped = 0;
  for (; x < width; ++x) {
    const float y = from[x];
    const float scaled = quant::dead_zone_scaled(rule, y);
    const int32_t over = quant::dead_zone_over(rule, scaled);
    to[x] = quant::dead_zone_value(rule, y, scaled, over);
    clipped += over;
    lanes[0] += scaled * scaled;
  }
  sums.energy = _mm256_load_ps(lanes);
  sums.clipped = _mm256_add_epi32(sums.clipped, _mm256_setr_epi32(clipped, 0, 0, 0, 0, 0, 0, 0));
}

// A finished row's sums into the block's: the lanes added in order into
// the double total, as quantize_dead_zone adds them.
[[gnu::target("avx2")]] void add_row(const RowSums& sums, quant::QuantizationError& e) {
  alignas(32) float lanes[8];
  alignas(32) int32_t clipped[8];
  _mm256_store_ps(lanes, sums.energy);
  _mm256_store_si256(reinterpret_cast<__m256i*>(clipped), sums.clipped);
  for (int k = 0; k < 8; ++k) {
    e.energy += lanes[k];
    e.clipped -= clipped[k];
  }
}

// Rows y and y + 1 of a block (f1 and q1 null past its last row): the
// coefficients, the indices in their place, each row's sums.
struct RowPair {
  const float* f0;
  const float* f1;
  int32_t* q0;
  int32_t* q1;
  RowSums s0, s1;
};

// Rows y and y + 1, those a few rows below them asked for first: as
// quantize_dead_zone, since a block's rows lie a band row apart, too far
// for the hardware prefetcher.
[[gnu::target("avx2")]] inline RowPair row_pair(PlaneView<const float> in, PlaneView<int32_t> out, int64_t y) {
  constexpr int64_t kAhead = 6;
  for (int64_t a = y + kAhead; a < y + kAhead + 2 && a < in.height; ++a)
    for (int64_t x = 0; x < in.width; x += 16) __builtin_prefetch(in.row(a) + x);
  const bool pair = y + 1 < in.height;
  const RowSums zero{_mm256_setzero_ps(), _mm256_setzero_si256()};
  return {in.row(y), pair ? in.row(y + 1) : nullptr, out.row(y), pair ? out.row(y + 1) : nullptr, zero, zero};
}

// A row pair from column x on, where its vector steps of 16 columns end:
// the rest quantised, each row's sums into `e`, the quads left counted one
// at a time.
[[gnu::target("avx2")]] inline void finish_rows(RowPair& p, int64_t x, int64_t width, const quant::DeadZoneRule& rule,
                                                const LaneRule& r, int fraction_bits, quant::QuantizationError& e,
                                                ExactCounts& c) {
  if (x < width) {
    quantise_rest(p.f0, p.q0, x, width, rule, r, p.s0);
    if (p.f1) quantise_rest(p.f1, p.q1, x, width, rule, r, p.s1);
    entropy::detail::count_edge_quads(c, fraction_bits, p.q0, p.q1, x, width);
  }
  add_row(p.s0, e);
  if (p.f1) add_row(p.s1, e);
}

// finish_rows for an AVX-512 caller, not inlined there: its plain loop's
// energy must not become a fused multiply-add.
[[gnu::target("avx2"), gnu::noinline]] void finish_rows_apart(RowPair& p, int64_t x, int64_t width,
                                                              const quant::DeadZoneRule& rule, const LaneRule& r,
                                                              int fraction_bits, quant::QuantizationError& e,
                                                              ExactCounts& c) {
  finish_rows(p, x, width, rule, r, fraction_bits, e, c);
}

[[gnu::target("avx2")]] quant::QuantizationError quantise_count_avx2(PlaneView<const float> in,
                                                                     const quant::DeadZoneRule& rule, int fraction_bits,
                                                                     PlaneView<int32_t> out, ExactCounts& c) {
  const LaneRule r = lane_rule(rule);
  const __m128i shift = _mm_cvtsi32_si128(fraction_bits);
  quant::QuantizationError e;
  for (int64_t y = 0; y < in.height; y += 2) {
    RowPair p = row_pair(in, out, y);
    int64_t x = 0;
    for (; p.f1 && x + 16 <= in.width; x += 16) {
      // Both rows' groups in column order, each row's lanes its own.
      const __m256i m[4] = {quantise8(p.f0 + x, p.q0 + x, r, p.s0), quantise8(p.f0 + x + 8, p.q0 + x + 8, r, p.s0),
                            quantise8(p.f1 + x, p.q1 + x, r, p.s1), quantise8(p.f1 + x + 8, p.q1 + x + 8, r, p.s1)};
      entropy::detail::count_quads_avx2(m, shift, c);
    }
    finish_rows(p, x, in.width, rule, r, fraction_bits, e, c);
  }
  return e;
}

#define MALLAT_AVX512 "avx2,avx512f,avx512cd,avx512bw,avx512vl"

// Sixteen coefficients of a row, as quantise8 twice: the magnitudes in one
// vector, the squares added to the row's eight lanes low half first.
[[gnu::target(MALLAT_AVX512)]] inline __m512i quantise16(const float* from, int32_t* to, __m512 inverse, __m512 ceiling,
                                                         __m512 below_ceiling, __m512 fine, __m512i limit,
                                                         RowSums& sums, int64_t& clipped) {
  const __m512 y = _mm512_loadu_ps(from);
  const __m512 scaled = _mm512_mul_ps(_mm512_abs_ps(y), inverse);
  const __mmask16 over = _mm512_cmp_ps_mask(scaled, ceiling, _CMP_NLT_UQ);
  const __m512 kept = _mm512_min_ps(scaled, below_ceiling);
  const __m512i m = _mm512_mask_mov_epi32(_mm512_cvttps_epi32(_mm512_mul_ps(kept, fine)), over, limit);
  const __m512i negative = _mm512_srai_epi32(_mm512_castps_si512(y), 31);
  _mm512_storeu_si512(to, _mm512_sub_epi32(_mm512_xor_si512(m, negative), negative));
  __m512 square = _mm512_mul_ps(scaled, scaled);
  // The product rounded before it is added (AVX-512 has fused
  // multiply-adds; the plain rule has none).
  asm("" : "+v"(square));
  sums.energy = _mm256_add_ps(sums.energy, _mm512_castps512_ps256(square));
  sums.energy = _mm256_add_ps(sums.energy, _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(square), 1)));
  clipped += __builtin_popcount(over);
  return m;
}

[[gnu::target(MALLAT_AVX512)]] quant::QuantizationError quantise_count_avx512(PlaneView<const float> in,
                                                                              const quant::DeadZoneRule& rule,
                                                                              int fraction_bits, PlaneView<int32_t> out,
                                                                              ExactCounts& c) {
  const __m512 inverse = _mm512_set1_ps(rule.inverse), ceiling = _mm512_set1_ps(rule.ceiling);
  const __m512 below_ceiling = _mm512_set1_ps(rule.below_ceiling), fine = _mm512_set1_ps(rule.fine);
  const __m512i limit = _mm512_set1_epi32(rule.limit);
  const LaneRule r = lane_rule(rule);
  const __m128i shift = _mm_cvtsi32_si128(fraction_bits);
  quant::QuantizationError e;
  int64_t clipped = 0;
  for (int64_t y = 0; y < in.height; y += 2) {
    RowPair p = row_pair(in, out, y);
    int64_t x = 0;
    for (; p.f1 && x + 16 <= in.width; x += 16) {
      const __m512i m0 = quantise16(p.f0 + x, p.q0 + x, inverse, ceiling, below_ceiling, fine, limit, p.s0, clipped);
      const __m512i m1 = quantise16(p.f1 + x, p.q1 + x, inverse, ceiling, below_ceiling, fine, limit, p.s1, clipped);
      entropy::detail::count_quads_avx512(m0, m1, shift, c);
    }
    finish_rows_apart(p, x, in.width, rule, r, fraction_bits, e, c);
  }
  e.clipped += clipped;
  return e;
}

}  // namespace

bool quantise_with_ht_statistics(PlaneView<const float> in, double delta, int max_bitplanes, int fraction_bits,
                                 PlaneView<int32_t> out, quant::QuantizationError& error,
                                 entropy::HtPlaneStatistics& statistics, entropy::ht::CleanupIsa isa) {
  if (entropy::ht::resolve_cleanup_isa(isa) == entropy::ht::CleanupIsa::kGeneric) return false;
  if (in.width > 1024 || in.width * in.height > entropy::detail::kMostSamples) return false;
  // quant::dead_zone_rule's bits: the indices lie below 2^(bits + F).
  const int bits = max_bitplanes < 31 ? max_bitplanes : 31;
  if (bits + fraction_bits > entropy::detail::kExactMagnitudeBits) return false;
  ExactCounts counts;
  const quant::DeadZoneRule rule = quant::dead_zone_rule(delta, max_bitplanes, fraction_bits);
  error = entropy::ht::resolve_cleanup_isa(isa) == entropy::ht::CleanupIsa::kAvx512
              ? quantise_count_avx512(in, rule, fraction_bits, out, counts)
              : quantise_count_avx2(in, rule, fraction_bits, out, counts);
  entropy::detail::to_statistics(counts, fraction_bits, statistics);
  return true;
}

#else

bool quantise_with_ht_statistics(PlaneView<const float>, double, int, int, PlaneView<int32_t>,
                                 quant::QuantizationError&, entropy::HtPlaneStatistics&, entropy::ht::CleanupIsa) {
  return false;
}

#endif

}  // namespace mallat::codec
