// The CPU's lowered samples (entropy/ht/exponent_bounds.h) in one pass over
// the block: each row pair's quads tested in vector lanes (the rule's
// tests, kappa_q's on the row above as coded; a pair without an index of 2
// passed over) and the values the passes code written as they are tested,
// the lowered samples one index lower, the effect summed in integers. The
// same values and sums as the plain rule's mask applied
// (tests/entropy/ht_exponent_bounds_test.cc holds every build to
// lower_exponent_bounds).
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

#include "entropy/ht/cpu/cleanup_kernels.h"
#include "entropy/ht/exponent_bounds.h"
#include "entropy/ht/passes.h"

#if MALLAT_HT_X86
// GCC 12's AVX-512 intrinsics start their results from an undefined vector
// (_mm512_undefined_epi32), which its -Wmaybe-uninitialized takes for a use
// of an uninitialised value.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#endif

namespace mallat::entropy::ht {
namespace {

// The widest block, 1024 samples (A.6.1), in quads.
constexpr int64_t kMaxQuads = 512;

// The largest shift of the one pass: quad_lowers' products stay below
// 2^31, a row pair's summed distances above the edge (2048 below 2^20)
// fit 32 bits, and the block's effect (2 step times 4096 distances below
// 2^20) stays below 2^53, so the plain rule's sums in doubles, added one
// sample at a time, are exact and equal to the integer sums converted once.
constexpr int kOnePassShift = 20;

// Whether a quad of magnitudes m0..m3 (0 where the block has no sample)
// passes lower_quad's tests, in 32-bit arithmetic (exact for shift <=
// kOnePassShift). `above` is the largest index as coded of the four samples
// above columns x0 - 1 .. x0 + 2 (0 in the first row pair). kappa's test
// without exponents: a candidate's largest index L is its exponent's first,
// so the indices of exponent E(L) end at 2 (L - 1), and E(L) > kappa_q =
// max(1, E_above - 1) holds exactly when no index above exceeds that (or
// the quad has one significant sample). Without branches (comparisons as 0
// or 1, masks of all ones), so that the loops run in vector lanes.
[[gnu::always_inline]] inline uint32_t quad_lowers(uint32_t m0, uint32_t m1, uint32_t m2, uint32_t m3,
                                                   uint32_t largest, uint32_t above, int shift, uint32_t share) {
  const uint32_t edge = largest << shift;
  const uint32_t sum = ((m0 - edge) & (0u - ((m0 >> shift) == largest))) +
                       ((m1 - edge) & (0u - ((m1 >> shift) == largest))) +
                       ((m2 - edge) & (0u - ((m2 >> shift) == largest))) +
                       ((m3 - edge) & (0u - ((m3 >> shift) == largest)));
  const uint32_t count =
      ((m0 >> shift) != 0) + ((m1 >> shift) != 0) + ((m2 >> shift) != 0) + ((m3 >> shift) != 0);
  uint32_t lowers = (largest >= 2) & (((largest - 1) & (largest - 2)) == 0);
  lowers &= 20 * sum < ((share * (count + 1)) << shift);
  lowers &= (count <= 1) | (above <= 2 * (largest - 1));
  return lowers;
}

// What one row pair lowered: its samples' summed distance above the edge
// and their count.
struct PairLowered {
  uint32_t above_edge = 0;
  uint32_t samples = 0;
};

// Sample v (magnitude m) of a quad that lowers (`lowers` 0 or 1) whose
// largest index is at `edge`: the value coded (one index lower where it is
// at the largest index: edge - 1 with v's sign), its distance above the
// edge and its count added to `pair`.
[[gnu::always_inline]] inline int32_t coded_sample(int32_t v, uint32_t m, uint32_t lowers, uint32_t largest,
                                                   uint32_t edge, int shift, PairLowered& pair) {
  const uint32_t lowered = lowers & ((m >> shift) == largest);
  const uint32_t mask = 0u - lowered;
  pair.above_edge += (m - edge) & mask;
  pair.samples += lowered;
  const uint32_t sign = static_cast<uint32_t>(v >> 31);
  const uint32_t low = ((edge - 1u) ^ sign) - sign;
  return static_cast<int32_t>((low & mask) | (static_cast<uint32_t>(v) & ~mask));
}

// Whether some index of a row pair (top, bottom; `width` samples) at
// `shift` reaches 2: without one no quad may be lowered.
[[gnu::always_inline]] inline bool index_reaches_two(const int32_t* top, const int32_t* bottom, int64_t width,
                                                     int shift) {
  uint32_t most = 0;
  for (int64_t x = 0; x < width; ++x) {
    most = std::max(most, std::max(detail::lowering_magnitude(top[x]), detail::lowering_magnitude(bottom[x])));
  }
  return (most >> shift) >= 2;
}

// A row pair's quads `from` .. `to` - 1, one at a time (the last of one
// column where the width is odd): the values coded written to coded_top and
// coded_bottom, below[x + 1] = the bottom row's index at x as coded (the
// next pair's `above`), the lowered samples added to `pair`. a[x + 1] is
// the row above's index as coded at x, zero around.
inline void lower_quads(int64_t from, int64_t to, const int32_t* top, const int32_t* bottom, int64_t width,
                        const uint32_t* a, int shift, uint32_t share, int32_t* coded_top, int32_t* coded_bottom,
                        uint32_t* below, PairLowered& pair) {
  for (int64_t q = from; q < to; ++q) {
    const int64_t x = 2 * q;
    const bool right = x + 1 < width;
    const uint32_t m0 = detail::lowering_magnitude(top[x]), m2 = detail::lowering_magnitude(bottom[x]);
    const uint32_t m1 = right ? detail::lowering_magnitude(top[x + 1]) : 0;
    const uint32_t m3 = right ? detail::lowering_magnitude(bottom[x + 1]) : 0;
    const uint32_t over = std::max(std::max(a[x], a[x + 1]), std::max(a[x + 2], right ? a[x + 3] : 0));
    const uint32_t largest = std::max(std::max(m0, m1), std::max(m2, m3)) >> shift;
    const uint32_t lowers = quad_lowers(m0, m1, m2, m3, largest, over, shift, share);
    const uint32_t edge = largest << shift;
    coded_top[x] = coded_sample(top[x], m0, lowers, largest, edge, shift, pair);
    coded_bottom[x] = coded_sample(bottom[x], m2, lowers, largest, edge, shift, pair);
    below[x + 1] = detail::lowering_magnitude(coded_bottom[x]) >> shift;
    if (!right) continue;
    coded_top[x + 1] = coded_sample(top[x + 1], m1, lowers, largest, edge, shift, pair);
    coded_bottom[x + 1] = coded_sample(bottom[x + 1], m3, lowers, largest, edge, shift, pair);
    below[x + 2] = detail::lowering_magnitude(coded_bottom[x + 1]) >> shift;
  }
}

// One row pair (top, bottom; `width` samples, the block's last pair of one
// row given a row of zeros as its bottom): returns false, and writes
// nothing, where no index reaches 2; else writes the values coded to
// coded_top and coded_bottom, below as lower_quads, and the lowered
// samples to `pair`. above[x + 1] is the row above's index as coded at x,
// zero around; null: every index there below 2.
using LowerPair = bool (*)(const int32_t* top, const int32_t* bottom, int64_t width, const uint32_t* above, int shift,
                           uint32_t share, int32_t* coded_top, int32_t* coded_bottom, uint32_t* below,
                           PairLowered& pair);

const uint32_t* above_or_zeros(const uint32_t* above) {
  static const uint32_t zeros[2 * kMaxQuads + 4] = {};
  return above ? above : zeros;
}

// Without vector steps of its own: the whole quads' tests in a loop the
// compiler runs in vector lanes, the pair copied as it is, then the quads
// that lower one at a time over the copy.
bool lower_pair_generic(const int32_t* top, const int32_t* bottom, int64_t width, const uint32_t* above, int shift,
                        uint32_t share, int32_t* coded_top, int32_t* coded_bottom, uint32_t* below,
                        PairLowered& pair) {
  if (!index_reaches_two(top, bottom, width, shift)) return false;
  const uint32_t* a = above_or_zeros(above);
  const int64_t whole = width / 2;
  uint8_t lowers[kMaxQuads];
  for (int64_t q = 0; q < whole; ++q) {
    const int64_t x = 2 * q;
    const uint32_t m0 = detail::lowering_magnitude(top[x]), m1 = detail::lowering_magnitude(top[x + 1]);
    const uint32_t m2 = detail::lowering_magnitude(bottom[x]), m3 = detail::lowering_magnitude(bottom[x + 1]);
    const uint32_t over = std::max(std::max(a[x], a[x + 1]), std::max(a[x + 2], a[x + 3]));
    const uint32_t largest = std::max(std::max(m0, m1), std::max(m2, m3)) >> shift;
    lowers[q] = static_cast<uint8_t>(quad_lowers(m0, m1, m2, m3, largest, over, shift, share));
  }
  std::copy(top, top + width, coded_top);
  std::copy(bottom, bottom + width, coded_bottom);
  for (int64_t x = 0; x < width; ++x) below[x + 1] = detail::lowering_magnitude(bottom[x]) >> shift;
  pair = {};
  for (int64_t q = 0; q < whole; ++q) {
    if (lowers[q] == 0) continue;
    lower_quads(q, q + 1, top, bottom, width, a, shift, share, coded_top, coded_bottom, below, pair);
  }
  lower_quads(whole, (width + 1) / 2, top, bottom, width, a, shift, share, coded_top, coded_bottom, below, pair);
  return true;
}

#if MALLAT_HT_X86
// v with lanes 2k and 2k + 1 swapped.
[[gnu::target(MALLAT_HT_AVX2_TARGET), gnu::always_inline]] inline __m256i with_neighbour(__m256i v) {
  return _mm256_shuffle_epi32(v, 0xB1);
}

// Four quads at a time in AVX2 lanes: lane n holds column x + n of the top
// and bottom rows, so the quad's two columns are neighbouring lanes (their
// sums and maxima taken with the lanes swapped in pairs) and the values
// coded are stored as loaded, in row order. The same tests as quad_lowers,
// in signed 32-bit lanes (every operand below 2^31 for shift <=
// kOnePassShift). Columns from `from` on (even), the quads left at the
// end one at a time; the lowered samples added to `pair`.
[[gnu::target(MALLAT_HT_AVX2_TARGET)]] void lower_avx2_from(int64_t from, const int32_t* top, const int32_t* bottom,
                                                           int64_t width, const uint32_t* a, int shift,
                                                           uint32_t share, int32_t* coded_top, int32_t* coded_bottom,
                                                           uint32_t* below, PairLowered& pair) {
  const __m128i by = _mm_cvtsi32_si128(shift);
  const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1), two = _mm256_set1_epi32(2);
  const __m256i twenty = _mm256_set1_epi32(20), shares = _mm256_set1_epi32(static_cast<int>(share));
  __m256i above_edge = zero, lowered = zero;
  int64_t x = from;
  for (; x + 8 <= width; x += 8) {
    const __m256i vt = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(top + x));
    const __m256i vb = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bottom + x));
    const __m256i mt = _mm256_abs_epi32(vt), mb = _mm256_abs_epi32(vb);
    const __m256i it = _mm256_srl_epi32(mt, by), ib = _mm256_srl_epi32(mb, by);
    const __m256i column = _mm256_max_epi32(it, ib);
    const __m256i largest = _mm256_max_epi32(column, with_neighbour(column));
    const __m256i edge = _mm256_sll_epi32(largest, by);
    const __m256i at_t = _mm256_cmpeq_epi32(it, largest), at_b = _mm256_cmpeq_epi32(ib, largest);
    // The quad's summed distance above the edge and its significant samples.
    __m256i sum = _mm256_add_epi32(_mm256_and_si256(_mm256_sub_epi32(mt, edge), at_t),
                                   _mm256_and_si256(_mm256_sub_epi32(mb, edge), at_b));
    sum = _mm256_add_epi32(sum, with_neighbour(sum));
    __m256i zeros = _mm256_add_epi32(_mm256_cmpeq_epi32(it, zero), _mm256_cmpeq_epi32(ib, zero));
    zeros = _mm256_add_epi32(zeros, with_neighbour(zeros));  // minus the quad's insignificant samples
    const __m256i count = _mm256_add_epi32(_mm256_set1_epi32(4), zeros);
    // The row above's largest index over columns x0 - 1 .. x0 + 2.
    const __m256i a0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + x));
    const __m256i a2 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + x + 2));
    const __m256i over_pairs = _mm256_max_epi32(a0, a2);
    const __m256i over = _mm256_max_epi32(over_pairs, with_neighbour(over_pairs));
    const __m256i less_one = _mm256_sub_epi32(largest, one);
    __m256i lowers = _mm256_and_si256(_mm256_cmpgt_epi32(largest, one),
                                      _mm256_cmpeq_epi32(_mm256_and_si256(less_one, _mm256_sub_epi32(largest, two)),
                                                         zero));
    const __m256i worth = _mm256_sll_epi32(_mm256_mullo_epi32(shares, _mm256_add_epi32(count, one)), by);
    lowers = _mm256_and_si256(lowers, _mm256_cmpgt_epi32(worth, _mm256_mullo_epi32(twenty, sum)));
    const __m256i over_bound = _mm256_cmpgt_epi32(over, _mm256_add_epi32(less_one, less_one));
    lowers = _mm256_and_si256(lowers, _mm256_or_si256(_mm256_cmpgt_epi32(two, count),
                                                      _mm256_andnot_si256(over_bound, _mm256_set1_epi32(-1))));
    const __m256i low_t = _mm256_and_si256(lowers, at_t), low_b = _mm256_and_si256(lowers, at_b);
    // A lowered sample: edge - 1 with its sign (never 0: its index is 2 or more).
    const __m256i below_edge = _mm256_sub_epi32(edge, one);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(coded_top + x),
                        _mm256_blendv_epi8(vt, _mm256_sign_epi32(below_edge, vt), low_t));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(coded_bottom + x),
                        _mm256_blendv_epi8(vb, _mm256_sign_epi32(below_edge, vb), low_b));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(below + x + 1), _mm256_add_epi32(ib, low_b));
    above_edge = _mm256_add_epi32(above_edge, _mm256_add_epi32(_mm256_and_si256(_mm256_sub_epi32(mt, edge), low_t),
                                                               _mm256_and_si256(_mm256_sub_epi32(mb, edge), low_b)));
    lowered = _mm256_sub_epi32(_mm256_sub_epi32(lowered, low_t), low_b);
  }
  alignas(32) uint32_t lanes[2][8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes[0]), above_edge);
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes[1]), lowered);
  for (int n = 0; n < 8; ++n) {
    pair.above_edge += lanes[0][n];
    pair.samples += lanes[1][n];
  }
  lower_quads(x / 2, (width + 1) / 2, top, bottom, width, a, shift, share, coded_top, coded_bottom, below, pair);
}

[[gnu::target(MALLAT_HT_AVX2_TARGET)]] bool lower_pair_avx2(const int32_t* top, const int32_t* bottom, int64_t width,
                                                           const uint32_t* above, int shift, uint32_t share,
                                                           int32_t* coded_top, int32_t* coded_bottom,
                                                           uint32_t* below, PairLowered& pair) {
  if (!index_reaches_two(top, bottom, width, shift)) return false;
  pair = {};
  lower_avx2_from(0, top, bottom, width, above_or_zeros(above), shift, share, coded_top, coded_bottom, below, pair);
  return true;
}

// Eight quads at a time in AVX-512 lanes, as lower_pair_avx2 with the
// tests' outcomes in mask registers: the values coded stored as loaded,
// the lowered ones over them. The bits a quad's samples are worth (the
// rule's (share x (significant + 1)) << shift) looked up by its count.
[[gnu::target(MALLAT_HT_AVX512_TARGET)]] bool lower_pair_avx512(const int32_t* top, const int32_t* bottom,
                                                               int64_t width, const uint32_t* above, int shift,
                                                               uint32_t share, int32_t* coded_top,
                                                               int32_t* coded_bottom, uint32_t* below,
                                                               PairLowered& pair) {
  if (!index_reaches_two(top, bottom, width, shift)) return false;
  const uint32_t* a = above_or_zeros(above);
  const __m128i by = _mm_cvtsi32_si128(shift);
  const __m512i zero = _mm512_setzero_si512(), one = _mm512_set1_epi32(1), two = _mm512_set1_epi32(2);
  const __m512i twenty = _mm512_set1_epi32(20);
  // Lanes 2k and 2k + 1 swapped.
  const __m512i neighbour = _mm512_set_epi32(14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1);
  alignas(64) uint32_t worth_of_count[16] = {};
  for (uint32_t count = 0; count <= 4; ++count) worth_of_count[count] = (share * (count + 1)) << shift;
  const __m512i worth_table = _mm512_load_si512(worth_of_count);
  __m512i above_edge = zero;
  uint32_t lowered = 0;
  int64_t x = 0;
  for (; x + 16 <= width; x += 16) {
    const __m512i vt = _mm512_loadu_si512(top + x), vb = _mm512_loadu_si512(bottom + x);
    const __m512i mt = _mm512_abs_epi32(vt), mb = _mm512_abs_epi32(vb);
    const __m512i it = _mm512_srl_epi32(mt, by), ib = _mm512_srl_epi32(mb, by);
    const __m512i column = _mm512_max_epi32(it, ib);
    const __m512i largest = _mm512_max_epi32(column, _mm512_permutexvar_epi32(neighbour, column));
    const __m512i less_one = _mm512_sub_epi32(largest, one);
    const __mmask16 candidate =
        _mm512_mask_testn_epi32_mask(_mm512_cmpgt_epi32_mask(largest, one), less_one, _mm512_sub_epi32(largest, two));
    const __m512i edge = _mm512_sll_epi32(largest, by);
    const __mmask16 at_t = _mm512_cmpeq_epi32_mask(it, largest), at_b = _mm512_cmpeq_epi32_mask(ib, largest);
    const __m512i d_t = _mm512_sub_epi32(mt, edge), d_b = _mm512_sub_epi32(mb, edge);
    // The quad's summed distance above the edge and its significant samples.
    const __m512i sum_t = _mm512_maskz_mov_epi32(at_t, d_t);
    __m512i sum = _mm512_mask_add_epi32(sum_t, at_b, sum_t, d_b);
    sum = _mm512_add_epi32(sum, _mm512_permutexvar_epi32(neighbour, sum));
    __m512i count = _mm512_add_epi32(_mm512_min_epu32(it, one), _mm512_min_epu32(ib, one));
    count = _mm512_add_epi32(count, _mm512_permutexvar_epi32(neighbour, count));
    const __m512i worth = _mm512_permutexvar_epi32(count, worth_table);
    // The row above's largest index over columns x0 - 1 .. x0 + 2.
    const __m512i over_pairs = _mm512_max_epi32(_mm512_loadu_si512(a + x), _mm512_loadu_si512(a + x + 2));
    const __m512i over = _mm512_max_epi32(over_pairs, _mm512_permutexvar_epi32(neighbour, over_pairs));
    const __mmask16 kappa_passed =
        _mm512_cmplt_epi32_mask(count, two) | _mm512_cmple_epi32_mask(over, _mm512_add_epi32(less_one, less_one));
    const __mmask16 lowers =
        _mm512_mask_cmpgt_epi32_mask(candidate & kappa_passed, worth, _mm512_mullo_epi32(twenty, sum));
    const __mmask16 low_t = lowers & at_t, low_b = lowers & at_b;
    // A lowered sample: edge - 1 with its sign (its index is 2 or more).
    const __m512i below_edge = _mm512_sub_epi32(edge, one);
    const __m512i negated = _mm512_sub_epi32(zero, below_edge);
    const __m512i low_top = _mm512_mask_mov_epi32(below_edge, _mm512_cmplt_epi32_mask(vt, zero), negated);
    const __m512i low_bottom = _mm512_mask_mov_epi32(below_edge, _mm512_cmplt_epi32_mask(vb, zero), negated);
    _mm512_storeu_si512(coded_top + x, _mm512_mask_mov_epi32(vt, low_t, low_top));
    _mm512_storeu_si512(coded_bottom + x, _mm512_mask_mov_epi32(vb, low_b, low_bottom));
    _mm512_storeu_si512(below + x + 1, _mm512_mask_sub_epi32(ib, low_b, ib, one));
    above_edge = _mm512_mask_add_epi32(above_edge, low_t, above_edge, d_t);
    above_edge = _mm512_mask_add_epi32(above_edge, low_b, above_edge, d_b);
    lowered += static_cast<uint32_t>(std::popcount(static_cast<uint32_t>(low_t) | uint32_t{low_b} << 16));
  }
  pair.above_edge = static_cast<uint32_t>(_mm512_reduce_add_epi32(above_edge));
  pair.samples = lowered;
  // The columns left: AVX2 lanes, then one quad at a time.
  if (x < width) lower_avx2_from(x, top, bottom, width, a, shift, share, coded_top, coded_bottom, below, pair);
  return true;
}
#endif

LowerPair lower_pair_for(CleanupIsa isa) {
  switch (resolve_cleanup_isa(isa)) {
#if MALLAT_HT_X86
    case CleanupIsa::kAvx512: return lower_pair_avx512;
    case CleanupIsa::kAvx2: return lower_pair_avx2;
#endif
    default: return lower_pair_generic;
  }
}

// The one pass (shift <= kOnePassShift). `coded` is written from the first
// row pair that lowers on (the rows before it copied then), so a block
// that lowers nothing costs no copy.
LoweringEffect lower_in(PlaneView<const int32_t> c, int shift, bool refinement, int share, int32_t* coded,
                        LowerPair lower_pair) {
  static const int32_t zeros[2 * kMaxQuads] = {};
  const int64_t w = c.width, h = c.height;
  // The row above's indices as coded and the bottom row's, column x at x + 1,
  // zeros around (lower_pair writes the middle).
  uint32_t rows_coded[2][2 * kMaxQuads + 4];
  for (uint32_t* r : rows_coded) r[0] = r[w + 1] = r[w + 2] = 0;
  int32_t spare_row[2 * kMaxQuads];  // the coded bottom of a last pair of one row
  uint64_t above_edge = 0, samples = 0;  // the block's lowered samples
  const uint32_t* above = nullptr;
  for (int64_t y0 = 0; y0 < h; y0 += 2) {
    const bool two_rows = h - y0 >= 2;
    const int32_t* top = c.row(y0);
    const int32_t* bottom = two_rows ? c.row(y0 + 1) : zeros;
    int32_t* coded_top = coded + y0 * w;
    int32_t* coded_bottom = two_rows ? coded_top + w : spare_row;
    const bool lowered_before = samples != 0;
    uint32_t* below = rows_coded[(y0 / 2) % 2];
    PairLowered pair;
    if (!lower_pair(top, bottom, w, above, shift, static_cast<uint32_t>(share), coded_top, coded_bottom, below, pair)) {
      // Every index below 2: coded as it is.
      if (lowered_before) {
        std::copy(top, top + w, coded_top);
        if (two_rows) std::copy(bottom, bottom + w, coded_bottom);
      }
      above = nullptr;
      continue;
    }
    above_edge += pair.above_edge;
    samples += pair.samples;
    if (!lowered_before && samples != 0) {
      for (int64_t y = 0; y < y0; ++y) std::copy(c.row(y), c.row(y) + w, coded + y * w);
    }
    above = below;
  }
  LoweringEffect effect;
  if (samples == 0) return effect;
  effect.any = true;
  // As commit_quad's sums: -2 step r and 2 (step / 4) (r + 1) per sample.
  const int64_t step = int64_t{1} << shift, quarter = shift >= 2 ? step >> 2 : 0;
  const auto distances = static_cast<int64_t>(above_edge);
  effect.cleanup = static_cast<double>(-2 * step * distances);
  if (refinement) effect.magref = static_cast<double>(quarter * 2 * (distances + static_cast<int64_t>(samples)));
  return effect;
}

}  // namespace

void apply_lowering(PlaneView<const int32_t> c, int shift, const LoweredSamples& lowered, int32_t* coded) {
  const int64_t w = c.width, h = c.height;
  for (int64_t y = 0; y < h; ++y) std::copy(c.row(y), c.row(y) + w, coded + y * w);
  // The mask's bits are the samples in order (y * w + x).
  for (int k = 0; k * 32 < w * h; ++k) {
    for (uint32_t left = lowered.bits[k]; left != 0; left &= left - 1) {
      int32_t& v = coded[k * 32 + std::countr_zero(left)];
      const auto m = static_cast<int32_t>(lowered_magnitude(detail::lowering_magnitude(v), shift));
      v = v < 0 ? -m : m;
    }
  }
}

LoweringEffect lower_exponent_bounds_cpu(PlaneView<const int32_t> c, int shift, bool refinement, int share,
                                         int32_t* coded, CleanupIsa isa) {
  if (shift > kOnePassShift) {
    // Beyond the one pass's exact range: the plain rule, its mask applied.
    thread_local LoweredSamples lowered;
    const LoweringEffect effect = lower_exponent_bounds(c, shift, refinement, share, lowered);
    if (effect.any) apply_lowering(c, shift, lowered, coded);
    return effect;
  }
  return lower_in(c, shift, refinement, share, coded, lower_pair_for(isa));
}

}  // namespace mallat::entropy::ht
