// The CPU's choice of lowered samples (entropy/ht/exponent_bounds.h): each
// row pair's quads tested in vector lanes (the rule's tests, kappa_q's on
// the row above as coded; a pair without an index of 2 passed over), then
// the plain rule's commit_quad on those that pass, in the same order, so
// the same mask and the same sums
// (tests/entropy/ht_exponent_bounds_test.cc holds it to
// lower_exponent_bounds).
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "entropy/ht/exponent_bounds.h"
#include "entropy/ht/passes.h"

namespace mallat::entropy::ht {
namespace {

// The widest block, 1024 samples (A.6.1), in quads.
constexpr int64_t kMaxQuads = 512;

// Whether a quad of magnitudes m0..m3 (0 where the block has no sample)
// passes lower_quad's tests, in 32-bit arithmetic: exact for shift <=
// kExactShift, where no product reaches 2^31. `above` is the largest index
// as coded of the four samples above columns x0 - 1 .. x0 + 2 (0 in the
// first row pair). kappa's test without exponents: a candidate's largest
// index L is its exponent's first, so the indices of exponent E(L) end at
// 2 (L - 1), and E(L) > kappa_q = max(1, E_above - 1) holds exactly when
// no index above exceeds that (or the quad has one significant sample).
constexpr int kExactShift = 24;
[[gnu::always_inline]] inline uint32_t quad_lowers(uint32_t m0, uint32_t m1, uint32_t m2, uint32_t m3,
                                                   uint32_t above, int shift, uint32_t share) {
  // Without branches (comparisons as 0 or 1, masks of all ones), so that
  // the loops run in vector lanes.
  const uint32_t largest = std::max(std::max(m0, m1), std::max(m2, m3)) >> shift;
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

// One row pair (top, bottom; `width` samples, the block's last pair of one
// row given a row of zeros as its bottom) measured: false, and nothing
// written, where no index reaches 2 (no quad may be lowered); else
// flags[q] = quad_lowers for each quad (of one column where the width is
// odd) and below[x + 1] = the bottom row's index at x (the next pair's
// `above`, before its lowered samples are taken off). above[x + 1] is the
// row above's index as coded at x, zero around; null: every index there
// below 2. Plain loops the compiler runs in vector lanes.
[[gnu::always_inline]] inline bool measure_pair_in(const int32_t* top, const int32_t* bottom, int64_t width,
                                                   const uint32_t* above, int shift, uint32_t share, uint8_t* flags,
                                                   uint32_t* below) {
  uint32_t most = 0;
  for (int64_t x = 0; x < width; ++x) {
    most = std::max(most, std::max(detail::lowering_magnitude(top[x]), detail::lowering_magnitude(bottom[x])));
  }
  if ((most >> shift) < 2) return false;
  static const uint32_t zeros[2 * kMaxQuads + 4] = {};
  const uint32_t* a = above ? above : zeros;
  const int64_t pairs = width / 2;
  for (int64_t q = 0; q < pairs; ++q) {
    const uint32_t over = std::max(std::max(a[2 * q], a[2 * q + 1]), std::max(a[2 * q + 2], a[2 * q + 3]));
    flags[q] = static_cast<uint8_t>(quad_lowers(
        detail::lowering_magnitude(top[2 * q]), detail::lowering_magnitude(top[2 * q + 1]),
        detail::lowering_magnitude(bottom[2 * q]), detail::lowering_magnitude(bottom[2 * q + 1]), over, shift,
        share));
  }
  if (width % 2 != 0) {
    const uint32_t over = std::max(std::max(a[width - 1], a[width]), a[width + 1]);
    flags[pairs] = static_cast<uint8_t>(quad_lowers(detail::lowering_magnitude(top[width - 1]), 0,
                                                    detail::lowering_magnitude(bottom[width - 1]), 0, over, shift,
                                                    share));
  }
  for (int64_t x = 0; x < width; ++x) below[x + 1] = detail::lowering_magnitude(bottom[x]) >> shift;
  return true;
}

// measure_pair_in built for the baseline and for AVX2 (functions of their
// own: inlined into lower_in's nest the compiler does not vectorise it).
using MeasurePair = bool (*)(const int32_t*, const int32_t*, int64_t, const uint32_t*, int, uint32_t, uint8_t*,
                             uint32_t*);
bool measure_pair_plain(const int32_t* top, const int32_t* bottom, int64_t width, const uint32_t* above, int shift,
                        uint32_t share, uint8_t* flags, uint32_t* below) {
  return measure_pair_in(top, bottom, width, above, shift, share, flags, below);
}
#if defined(__x86_64__) && defined(__GNUC__)
#define MALLAT_LOWERING_AVX2 1
[[gnu::target("avx2")]] bool measure_pair_avx2(const int32_t* top, const int32_t* bottom, int64_t width,
                                               const uint32_t* above, int shift, uint32_t share, uint8_t* flags,
                                               uint32_t* below) {
  return measure_pair_in(top, bottom, width, above, shift, share, flags, below);
}
#endif

LoweringEffect lower_in(PlaneView<const int32_t> c, int shift, bool refinement, LoweredSamples& out,
                        MeasurePair measure_pair) {
  // Beyond 32-bit range: the plain rule.
  if (shift > kExactShift) return lower_exponent_bounds(c, shift, refinement, out);
  LoweringEffect effect;
  std::memset(out.bits, 0, sizeof out.bits);
  static const int32_t zeros[2 * kMaxQuads] = {};
  const int64_t w = c.width, h = c.height, quads = (w + 1) / 2;
  const uint32_t share = refinement ? kLoweringShareWithRefinement : kLoweringShareCleanupAlone;
  uint8_t flags[kMaxQuads + 8];
  // The row above's indices as coded and the bottom row's, column x at x + 1,
  // zeros around (measure_pair writes the middle).
  uint32_t rows_coded[2][2 * kMaxQuads + 4];
  for (uint32_t* r : rows_coded) r[0] = r[w + 1] = r[w + 2] = 0;
  const uint32_t* above = nullptr;
  for (int64_t y0 = 0; y0 < h; y0 += 2) {
    const int64_t rows = h - y0 < 2 ? h - y0 : 2;
    const int32_t* top = c.row(y0);
    const int32_t* bottom = rows == 2 ? c.row(y0 + 1) : zeros;
    uint32_t* below = rows_coded[(y0 / 2) % 2];
    if (!measure_pair(top, bottom, w, above, shift, share, flags, below)) {
      above = nullptr;
      continue;
    }
    std::memset(flags + quads, 0, 8);
    for (int64_t q0 = 0; q0 < quads; q0 += 8) {
      uint64_t eight;
      std::memcpy(&eight, flags + q0, 8);
      if (eight == 0) continue;
      for (int64_t q = q0; q < q0 + 8 && q < quads; ++q) {
        if (flags[q] == 0) continue;
        const int64_t x0 = 2 * q, cols = w - x0 < 2 ? w - x0 : 2;
        uint32_t largest = std::max(detail::lowering_magnitude(top[x0]), detail::lowering_magnitude(bottom[x0]));
        if (cols == 2) {
          largest = std::max({largest, detail::lowering_magnitude(top[x0 + 1]),
                              detail::lowering_magnitude(bottom[x0 + 1])});
        }
        // The flag is lower_quad's verdict: its samples at `largest` go down.
        largest >>= shift;
        detail::commit_quad(c, shift, refinement, x0, y0, rows, cols, largest, out, effect);
        if (rows < 2) continue;
        for (int64_t x = x0; x < x0 + cols; ++x) below[x + 1] -= below[x + 1] == largest ? 1u : 0u;
      }
    }
    above = below;
  }
  return effect;
}

}  // namespace

LoweringEffect lower_exponent_bounds_cpu(PlaneView<const int32_t> c, int shift, bool refinement,
                                         LoweredSamples& out) {
#if defined(MALLAT_LOWERING_AVX2)
  static const MeasurePair measure_pair = __builtin_cpu_supports("avx2") ? measure_pair_avx2 : measure_pair_plain;
#else
  const MeasurePair measure_pair = measure_pair_plain;
#endif
  return lower_in(c, shift, refinement, out, measure_pair);
}

}  // namespace mallat::entropy::ht
