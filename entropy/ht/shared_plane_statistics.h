// An HT code-block's plane statistics (plane_statistics.h) as code shared
// by the host compiler and nvcc (host_device.h): the device's gather
// (codec/stages/cuda/ht_statistics_kernel.cu) counts a block's quads on
// many threads at once, each quad by ht_count_quad into a tally of its own
// kind, and finishes the block by ht_finish_statistics; CI runs the same
// functions on the CPU against gather_ht_plane_statistics_reference
// (tests/entropy/shared_plane_statistics_test.cc).
//
// The counts are whole numbers, the same in any order. The energies are
// too where every magnitude lies below 2^20 (a block of at most 4096
// samples, 15444-1 A.6.1, sums squares below 2^40 below 2^52, where the
// reference's double sums are exact); for a deeper block they are the
// reference's double sums taken again in its order
// (ht_energy_in_quad_order), each product and sum rounded once.
#pragma once

#include <cstdint>

#include "common/host_device.h"
#include "entropy/ht/plane_statistics.h"

#if !defined(__CUDA_ARCH__)
#include <bit>
#endif

namespace mallat::entropy {

// Below 2^kHtExactMagnitudeBits every energy is an exact integer sum.
inline constexpr int kHtExactMagnitudeBits = 20;

// A block's indices: `width` x `height` int32 values, rows `stride` apart.
struct HtBlockIndices {
  const int32_t* data = nullptr;
  uint32_t width = 0;
  uint32_t height = 0;
  uint64_t stride = 0;
};

// The statistics' counts with each energy an exact integer sum, and the
// OR of every magnitude (its bit length says whether the sums are exact).
struct HtPlaneCounts {
  uint32_t quads[kHtPlanes];
  uint32_t samples[kHtPlanes][kHtPlanes];
  unsigned long long energy[kHtPlanes];
  uint32_t any;
};

MALLAT_HD inline uint32_t ht_index_magnitude(int32_t q) {
  return q < 0 ? 0u - static_cast<uint32_t>(q) : static_cast<uint32_t>(q);
}

MALLAT_HD inline int ht_bit_length(uint32_t v) {
#if defined(__CUDA_ARCH__)
  return 32 - __clz(static_cast<int>(v));
#else
  return std::bit_width(v);
#endif
}

// The block's quads (15444-15 B.2: 2x2 at even rows and columns, cut at
// the block's edges), numbered row of quads by row, as the reference
// visits them.
MALLAT_HD inline uint32_t ht_quads_across(const HtBlockIndices& b) { return (b.width + 1) / 2; }
MALLAT_HD inline uint32_t ht_quad_count(const HtBlockIndices& b) {
  return ht_quads_across(b) * ((b.height + 1) / 2);
}

// Quad `q`'s magnitudes in the reference's order: (x, y), (x, y + 1),
// (x + 1, y), (x + 1, y + 1); 0 where the block's edge cuts the quad.
// Reads only samples inside the block.
MALLAT_HD inline void ht_quad_magnitudes(const HtBlockIndices& b, uint32_t q, uint32_t m[4]) {
  const uint32_t across = ht_quads_across(b);
  const uint32_t x = 2 * (q % across), y = 2 * (q / across);
  const int32_t* r0 = b.data + y * b.stride;
  const bool down = y + 1 < b.height, right = x + 1 < b.width;
  m[0] = ht_index_magnitude(r0[x]);
  m[1] = down ? ht_index_magnitude(r0[b.stride + x]) : 0u;
  m[2] = right ? ht_index_magnitude(r0[x + 1]) : 0u;
  m[3] = down && right ? ht_index_magnitude(r0[b.stride + x + 1]) : 0u;
}

// One quad into `tally`, whose quad(top), sample(top, l, square) and
// any(m) add to its counts (plainly on the host, HtPlainTally; atomically
// in the device's shared memory). False, with nothing counted, where a
// bit length would pass kHtPlanes - 1 (a magnitude of 2^31 with F = 0,
// which no quantiser gives: its indices lie below 2^(Mb + F) <= 2^31).
template <typename Tally>
MALLAT_HD inline bool ht_count_quad(Tally& tally, int fraction_bits, const uint32_t m[4]) {
  const uint32_t all = m[0] | m[1] | m[2] | m[3];
  const int top = ht_bit_length(all >> fraction_bits);
  if (top >= kHtPlanes) return false;
  tally.any(all);
  tally.quad(top);
  if (top == 0) return true;
  for (int k = 0; k < 4; ++k) {
    const int l = ht_bit_length(m[k] >> fraction_bits);
    if (l == 0) continue;
    tally.sample(top, l, static_cast<unsigned long long>(m[k]) * m[k]);
  }
  return true;
}

// The host's tally: plain adds into one HtPlaneCounts.
struct HtPlainTally {
  HtPlaneCounts& c;
  MALLAT_HD void any(uint32_t m) { c.any |= m; }
  MALLAT_HD void quad(int top) { ++c.quads[top]; }
  MALLAT_HD void sample(int top, int l, unsigned long long square) {
    ++c.samples[top][l];
    c.energy[l] += square;
  }
};

MALLAT_HD inline void ht_clear_counts(HtPlaneCounts& c) {
  for (int b = 0; b < kHtPlanes; ++b) {
    c.quads[b] = 0;
    c.energy[b] = 0;
    for (int l = 0; l < kHtPlanes; ++l) c.samples[b][l] = 0;
  }
  c.any = 0;
}

// Whether the counts' integer energies are the reference's sums.
MALLAT_HD inline bool ht_energy_exact(const HtPlaneCounts& c) { return ht_bit_length(c.any) <= kHtExactMagnitudeBits; }

// The reference's energy sums (before its scaling by 2^-2F), quad by quad
// in its order, each square and each sum rounded once as the host's
// doubles are (no fused multiply-add on either side).
MALLAT_HD inline void ht_energy_in_quad_order(const HtBlockIndices& b, int fraction_bits, double energy[kHtPlanes]) {
  for (int l = 0; l < kHtPlanes; ++l) energy[l] = 0;
  const uint32_t quads = ht_quad_count(b);
  for (uint32_t q = 0; q < quads; ++q) {
    uint32_t m[4];
    ht_quad_magnitudes(b, q, m);
    if (ht_bit_length((m[0] | m[1] | m[2] | m[3]) >> fraction_bits) == 0) continue;
    for (int k = 0; k < 4; ++k) {
      const int l = ht_bit_length(m[k] >> fraction_bits);
      if (l == 0 || l >= kHtPlanes) continue;
      const double v = static_cast<double>(m[k]);
#if defined(__CUDA_ARCH__)
      energy[l] = __dadd_rn(energy[l], __dmul_rn(v, v));
#else
      const double square = v * v;
      energy[l] += square;
#endif
    }
  }
}

// 2^-2F: the statistics' energies are in units of the index squared.
MALLAT_HD inline double ht_energy_unit(int fraction_bits) {
  return 1.0 / static_cast<double>(1ull << (2 * fraction_bits));
}

// Entry (b, l) of the statistics from the counts: quads[b] (l = 0),
// samples[b][l]. Every entry is its own, so that the device's threads
// write the block's statistics side by side.
MALLAT_HD inline uint16_t ht_sample_statistic(const HtPlaneCounts& c, int b, int l) {
  return l >= 1 && l <= b ? static_cast<uint16_t>(c.samples[b][l]) : uint16_t{0};
}
// energy[l] from the counts, or from `deep` (ht_energy_in_quad_order's
// sums) where the counts' are not exact.
MALLAT_HD inline double ht_energy_statistic(const HtPlaneCounts& c, const double* deep, int l, int fraction_bits) {
  if (l == 0) return 0;
  const double sum = ht_energy_exact(c) ? static_cast<double>(c.energy[l]) : deep[l];
  return sum * ht_energy_unit(fraction_bits);
}

// The whole block's statistics from its counts (and `deep`, as above), as
// the device's threads write them entry by entry.
MALLAT_HD inline void ht_finish_statistics(const HtPlaneCounts& c, const double* deep, int fraction_bits,
                                           HtPlaneStatistics& out) {
  for (int b = 0; b < kHtPlanes; ++b) {
    out.quads[b] = c.quads[b];
    out.energy[b] = ht_energy_statistic(c, deep, b, fraction_bits);
    for (int l = 0; l < kHtPlanes; ++l) out.samples[b][l] = ht_sample_statistic(c, b, l);
  }
}

// Counts quads first, first + step, ... of block `b` into `tally` (a
// thread's share where `step` threads share the block); false where
// ht_count_quad refused one, the rest then left uncounted.
template <class Tally>
MALLAT_HD inline bool ht_count_quads(const HtBlockIndices& b, int fraction_bits, Tally& tally, uint32_t first,
                                     uint32_t step) {
  const uint32_t quads = ht_quad_count(b);
  for (uint32_t q = first; q < quads; q += step) {
    uint32_t m[4];
    ht_quad_magnitudes(b, q, m);
    if (!ht_count_quad(tally, fraction_bits, m)) return false;
  }
  return true;
}

// The block's statistics once every quad is counted into `counts`: the
// energies summed again in quad order where the counts cannot hold them
// exactly.
MALLAT_HD inline void ht_finish_block(const HtBlockIndices& b, int fraction_bits, const HtPlaneCounts& counts,
                                      double deep[kHtPlanes], HtPlaneStatistics& out) {
  if (!ht_energy_exact(counts)) ht_energy_in_quad_order(b, fraction_bits, deep);
  ht_finish_statistics(counts, deep, fraction_bits, out);
}

// The statistics of one block on one thread: what the device's threads do
// together, in plain sequence. False where ht_count_quad refused a quad.
MALLAT_HD inline bool ht_block_statistics(const HtBlockIndices& b, int fraction_bits, HtPlaneCounts& counts,
                                          double deep[kHtPlanes], HtPlaneStatistics& out) {
  ht_clear_counts(counts);
  HtPlainTally tally{counts};
  if (!ht_count_quads(b, fraction_bits, tally, 0, 1)) return false;
  ht_finish_block(b, fraction_bits, counts, deep, out);
  return true;
}

}  // namespace mallat::entropy
