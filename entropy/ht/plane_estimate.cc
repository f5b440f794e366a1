#include "entropy/ht/plane_estimate.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "entropy/ht/plane_counts.h"

#if defined(__x86_64__)
// GCC 12's AVX-512 intrinsics start their results from an undefined vector
// (_mm512_undefined_epi32), which its -Wmaybe-uninitialized takes for a use
// of an uninitialised value.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#endif

namespace mallat::entropy {
namespace {

// Bits of the cleanup segment (15444-15 B.3) per unit of each count, fitted
// on the code-blocks of photographs coded at every plane: MagSgn bits are
// about the estimate of them, each significant quad adds its VLC codeword
// and exponent residual (B.3.5), each insignificant quad a MEL or VLC
// symbol; a segment has a few bytes of its own (Scup, the streams' ends).
constexpr double kPerMagSgnBit = 1.11;
constexpr double kPerSignificantQuad = 6.5;
constexpr double kPerInsignificantQuad = 0.05;
constexpr double kSegmentBytes = 11.0;

uint32_t magnitude(int32_t q) { return q < 0 ? 0u - static_cast<uint32_t>(q) : static_cast<uint32_t>(q); }

}  // namespace

void gather_ht_plane_statistics_reference(PlaneView<const int32_t> indices, int fraction_bits,
                                          HtPlaneStatistics& out) {
  out = HtPlaneStatistics{};
  // One quad: its samples' magnitudes (0 where the block's edge cuts it).
  // The largest bit length is the OR's.
  const auto quad = [&](uint32_t m0, uint32_t m1, uint32_t m2, uint32_t m3) {
    const uint32_t any = (m0 | m1 | m2 | m3) >> fraction_bits;
    const int top = std::bit_width(any);
    ++out.quads[top];
    if (top == 0) return;
    for (const uint32_t m : {m0, m1, m2, m3}) {
      const int l = std::bit_width(m >> fraction_bits);
      if (l == 0) continue;
      ++out.samples[top][l];
      out.energy[l] += static_cast<double>(m) * static_cast<double>(m);
    }
  };
  for (int64_t y = 0; y < indices.height; y += 2) {
    const int32_t* r0 = indices.row(y);
    const int32_t* r1 = y + 1 < indices.height ? indices.row(y + 1) : nullptr;
    int64_t x = 0;
    if (r1 != nullptr) {
      for (; x + 1 < indices.width; x += 2)
        quad(magnitude(r0[x]), magnitude(r1[x]), magnitude(r0[x + 1]), magnitude(r1[x + 1]));
    }
    for (; x < indices.width; x += 2) {
      const bool right = x + 1 < indices.width;
      quad(magnitude(r0[x]), r1 ? magnitude(r1[x]) : 0u, right ? magnitude(r0[x + 1]) : 0u,
           r1 && right ? magnitude(r1[x + 1]) : 0u);
    }
  }
  const double unit = std::ldexp(1.0, -2 * fraction_bits);
  for (double& e : out.energy) e *= unit;
}

namespace detail {
namespace {

void count_quad(ExactCounts& c, int fraction_bits, uint32_t m0, uint32_t m1, uint32_t m2, uint32_t m3) {
  const int top = std::bit_width((m0 | m1 | m2 | m3) >> fraction_bits);
  ++c.quads[top];
  if (top == 0) return;
  uint32_t* row = c.samples[top];
  for (const uint32_t m : {m0, m1, m2, m3}) {
    const int l = std::bit_width(m >> fraction_bits);
    ++row[l];
    c.energy[l] += uint64_t{m} * m;
  }
}

}  // namespace

// The quads of rows r0 and r1 (null past the block's last row) from column
// x on, one at a time: those the vector steps leave at the block's edges.
void count_edge_quads(ExactCounts& c, int fraction_bits, const int32_t* r0, const int32_t* r1, int64_t x,
                      int64_t width) {
  if (r1 != nullptr) {
    for (; x + 1 < width; x += 2)
      count_quad(c, fraction_bits, magnitude(r0[x]), magnitude(r1[x]), magnitude(r0[x + 1]), magnitude(r1[x + 1]));
  }
  for (; x < width; x += 2) {
    const bool right = x + 1 < width;
    count_quad(c, fraction_bits, magnitude(r0[x]), r1 ? magnitude(r1[x]) : 0u, right ? magnitude(r0[x + 1]) : 0u,
               r1 && right ? magnitude(r1[x + 1]) : 0u);
  }
}

void to_statistics(const ExactCounts& c, int fraction_bits, HtPlaneStatistics& out) {
  const double unit = std::ldexp(1.0, -2 * fraction_bits);
  out = HtPlaneStatistics{};
  // Above the largest quad's bit length every count is 0.
  int planes = kHtPlanes;
  while (planes > 1 && c.quads[planes - 1] == 0) --planes;
  for (int b = 0; b < planes; ++b) {
    out.quads[b] = c.quads[b];
    for (int l = 1; l <= b; ++l) out.samples[b][l] = static_cast<uint16_t>(c.samples[b][l]);
    if (b > 0) out.energy[b] = static_cast<double>(c.energy[b]) * unit;
  }
}

}  // namespace detail

#if defined(__x86_64__)
namespace {

using detail::count_edge_quads;
using detail::count_quads_avx2;
using detail::count_quads_avx512;
using detail::count_significant;
using detail::ExactCounts;
using detail::kExactMagnitudeBits;
using detail::kMostSamples;
using detail::to_statistics;

[[gnu::target("avx2")]] inline __m256i magnitudes(const int32_t* p) {
  return _mm256_abs_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}

// The block's largest magnitude, in vectors.
[[gnu::target("avx2")]] uint32_t largest_magnitude(PlaneView<const int32_t> indices) {
  __m256i all = _mm256_setzero_si256();
  uint32_t largest = 0;
  for (int64_t y = 0; y < indices.height; ++y) {
    const int32_t* row = indices.row(y);
    int64_t x = 0;
    for (; x + 8 <= indices.width; x += 8) all = _mm256_or_si256(all, magnitudes(row + x));
    for (; x < indices.width; ++x) largest |= magnitude(row[x]);
  }
  alignas(32) uint32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), all);
  for (const uint32_t l : lanes) largest |= l;
  return largest;
}

// Whether the fast passes' exact sums hold for the block (at most 4096
// samples, magnitudes below 2^20, `magnitude_bits` a bound known for them).
// INT32_MIN's magnitude, 2^31, is left as it is: too long for the exact sums.
bool exact_sums_hold(PlaneView<const int32_t> indices, int magnitude_bits) {
  if (indices.width * indices.height > kMostSamples) return false;
  return magnitude_bits <= kExactMagnitudeBits ||
         std::bit_width(largest_magnitude(indices)) <= kExactMagnitudeBits;
}

// Eight quads (two rows of 16 samples) a step: magnitudes, bit lengths (the
// exponent of the magnitude as a float, exact below 2^24) and each quad's
// largest in vectors; then the counts, per quad and per significant sample.
// A step of insignificant quads, the most common, is one test.
[[gnu::target("avx2")]] void gather_avx2(PlaneView<const int32_t> indices, int fraction_bits, ExactCounts& c) {
  const __m128i shift = _mm_cvtsi32_si128(fraction_bits);
  for (int64_t y = 0; y < indices.height; y += 2) {
    const int32_t* r0 = indices.row(y);
    const int32_t* r1 = y + 1 < indices.height ? indices.row(y + 1) : nullptr;
    int64_t x = 0;
    for (; r1 != nullptr && x + 16 <= indices.width; x += 16) {
      const __m256i m[4] = {magnitudes(r0 + x), magnitudes(r0 + x + 8), magnitudes(r1 + x), magnitudes(r1 + x + 8)};
      count_quads_avx2(m, shift, c);
    }
    count_edge_quads(c, fraction_bits, r0, r1, x, indices.width);
  }
}

// The same steps with AVX-512's 16 lanes, one row of a step a vector: the
// bit lengths from the lanes' leading zero counts (CD), the significant
// samples as a mask.
[[gnu::target("avx2,avx512f,avx512cd,avx512bw,avx512vl")]] void gather_avx512(PlaneView<const int32_t> indices,
                                                                              int fraction_bits, ExactCounts& c) {
  const __m128i shift = _mm_cvtsi32_si128(fraction_bits);
  for (int64_t y = 0; y < indices.height; y += 2) {
    const int32_t* r0 = indices.row(y);
    const int32_t* r1 = y + 1 < indices.height ? indices.row(y + 1) : nullptr;
    int64_t x = 0;
    for (; r1 != nullptr && x + 16 <= indices.width; x += 16) {
      const __m512i m0 = _mm512_abs_epi32(_mm512_loadu_si512(r0 + x));
      const __m512i m1 = _mm512_abs_epi32(_mm512_loadu_si512(r1 + x));
      count_quads_avx512(m0, m1, shift, c);
    }
    count_edge_quads(c, fraction_bits, r0, r1, x, indices.width);
  }
}

}  // namespace

void gather_ht_plane_statistics(PlaneView<const int32_t> indices, int fraction_bits, HtPlaneStatistics& out,
                                int magnitude_bits, ht::CleanupIsa isa) {
  const ht::CleanupIsa use = ht::resolve_cleanup_isa(isa);
  if (use != ht::CleanupIsa::kGeneric && exact_sums_hold(indices, magnitude_bits)) {
    ExactCounts c;
    if (use == ht::CleanupIsa::kAvx512) {
      gather_avx512(indices, fraction_bits, c);
    } else {
      gather_avx2(indices, fraction_bits, c);
    }
    to_statistics(c, fraction_bits, out);
    return;
  }
  gather_ht_plane_statistics_reference(indices, fraction_bits, out);
}
#else
void gather_ht_plane_statistics(PlaneView<const int32_t> indices, int fraction_bits, HtPlaneStatistics& out, int,
                                ht::CleanupIsa) {
  gather_ht_plane_statistics_reference(indices, fraction_bits, out);
}
#endif

namespace {

// The whole-block sums: the quads, the top plane, the energy.
HtPlaneEstimate block_totals(const HtPlaneStatistics& s, double& quads) {
  HtPlaneEstimate out;
  quads = 0;
  for (int b = 0; b < kHtPlanes; ++b) {
    quads += s.quads[b];
    if (s.quads[b] > 0) out.planes = b;
    out.energy += s.energy[b];
  }
  return out;
}

// Plane p's estimate from its sums over the samples and quads significant
// there.
void estimate_plane(int p, int fraction_bits, double quads, double magsgn, double significant_quads,
                    double significant, double removed, HtPlaneEstimate& out) {
  const double bits = kPerMagSgnBit * magsgn + kPerSignificantQuad * significant_quads +
                      kPerInsignificantQuad * (quads - significant_quads);
  out.bytes[p] = static_cast<float>(bits / 8.0 + kSegmentBytes);
  // E.1.1.2: a significant sample is reconstructed at the middle of its
  // interval of 2^p index units, 2^(p + F) values apart by 2^-F: with its
  // value uniform over them the error left is (4^p + 2 x 4^-F) / 12;
  // none where the interval is one value (the reversible path's plane 0).
  const double left =
      p + fraction_bits > 0 ? (std::ldexp(1.0, 2 * p) + 2 * std::ldexp(1.0, -2 * fraction_bits)) / 12.0 : 0.0;
  out.error_left[p] = static_cast<float>(out.energy - std::max(0.0, removed - significant * left));
}

}  // namespace

HtPlaneEstimate estimate_ht_planes(const HtPlaneStatistics& s, int fraction_bits) {
  double quads;
  HtPlaneEstimate out = block_totals(s, quads);
  // in_quad[b]: the samples significant at plane p in quads of bit length
  // b, grown one bit length a plane from the top plane down. The counts and
  // their sums are whole numbers below 2^53, exact in any order: the
  // reference's doubles.
  double in_quad[kHtPlanes + 1] = {};
  for (int p = out.planes - 1; p >= 0; --p) {
    double magsgn = 0, significant_quads = 0, significant = 0, removed = 0;
    for (int b = p + 1; b <= out.planes; ++b) {
      significant_quads += s.quads[b];
      in_quad[b] += s.samples[b][p + 1];
      magsgn += in_quad[b] * (b - p);
      significant += in_quad[b];
      removed += s.energy[b];
    }
    estimate_plane(p, fraction_bits, quads, magsgn, significant_quads, significant, removed, out);
  }
  return out;
}

HtPlaneEstimate estimate_ht_planes_reference(const HtPlaneStatistics& s, int fraction_bits) {
  double quads;
  HtPlaneEstimate out = block_totals(s, quads);
  for (int p = 0; p < out.planes; ++p) {
    double magsgn = 0, significant_quads = 0, significant = 0, removed = 0;
    for (int b = p + 1; b <= out.planes; ++b) {
      significant_quads += s.quads[b];
      double in_quad = 0;
      for (int l = p + 1; l <= b; ++l) in_quad += s.samples[b][l];
      magsgn += in_quad * (b - p);
      significant += in_quad;
      removed += s.energy[b];
    }
    estimate_plane(p, fraction_bits, quads, magsgn, significant_quads, significant, removed, out);
  }
  return out;
}

}  // namespace mallat::entropy
