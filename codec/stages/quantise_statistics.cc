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

[[gnu::target("avx2")]] quant::QuantizationError quantise_count_avx2(PlaneView<const float> in,
                                                                     const quant::DeadZoneRule& rule, int fraction_bits,
                                                                     PlaneView<int32_t> out, ExactCounts& c) {
  const LaneRule r = lane_rule(rule);
  const __m128i shift = _mm_cvtsi32_si128(fraction_bits);
  // As quantize_dead_zone: a block's rows lie a band row apart, too far
  // for the hardware prefetcher, so rows a few ahead are asked for.
  constexpr int64_t kAhead = 6;
  quant::QuantizationError e;
  for (int64_t y = 0; y < in.height; y += 2) {
    const bool pair = y + 1 < in.height;
    for (int64_t a = y + kAhead; a < y + kAhead + (pair ? 2 : 1) && a < in.height; ++a)
      for (int64_t x = 0; x < in.width; x += 16) __builtin_prefetch(in.row(a) + x);
    const float* f0 = in.row(y);
    int32_t* q0 = out.row(y);
    RowSums s0{_mm256_setzero_ps(), _mm256_setzero_si256()};
    if (!pair) {
      quantise_rest(f0, q0, 0, in.width, rule, r, s0);
      add_row(s0, e);
      entropy::detail::count_edge_quads(c, fraction_bits, q0, nullptr, 0, in.width);
      break;
    }
    const float* f1 = in.row(y + 1);
    int32_t* q1 = out.row(y + 1);
    RowSums s1 = s0;
    int64_t x = 0;
    for (; x + 16 <= in.width; x += 16) {
      // Both rows' groups in column order, each row's lanes its own.
      const __m256i m[4] = {quantise8(f0 + x, q0 + x, r, s0), quantise8(f0 + x + 8, q0 + x + 8, r, s0),
                            quantise8(f1 + x, q1 + x, r, s1), quantise8(f1 + x + 8, q1 + x + 8, r, s1)};
      entropy::detail::count_quads_avx2(m, shift, c);
    }
    quantise_rest(f0, q0, x, in.width, rule, r, s0);
    quantise_rest(f1, q1, x, in.width, rule, r, s1);
    add_row(s0, e);
    add_row(s1, e);
    entropy::detail::count_edge_quads(c, fraction_bits, q0, q1, x, in.width);
  }
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
  error =
      quantise_count_avx2(in, quant::dead_zone_rule(delta, max_bitplanes, fraction_bits), fraction_bits, out, counts);
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
