// An HT code-block's plane statistics (plane_statistics.h) cut at a
// tile's bit lengths, as the device's gather writes them for the host
// (codec/stages/cuda/device_ht_rate.h): a quantiser's indices lie below
// 2^(Mb + F) (15444-1 E-2), so every bit length of |q| >> F is at most
// Mb, and a tile's entries from its largest Mb + 1 up are all 0. Each
// block's entries sit in `stride` bytes: the energies (doubles, first, so
// that they stay 8-byte aligned), the quads, then the samples[b][l],
// `planes` x `planes`. Shared by the host compiler and nvcc
// (host_device.h): the kernel writes an entry at a time, the host expands
// a block into the full struct for estimate_ht_planes; CI checks the
// round trip against the full statistics
// (tests/entropy/ht_shared_plane_statistics_test.cc).
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/host_device.h"
#include "entropy/ht/shared_plane_statistics.h"

namespace mallat::entropy {

// What the device's gather could not take (bits of its launch's flag
// word): a job whose samples lie outside the coefficients, a magnitude
// past the planes (ht_count_quad's refusal), a bit length past the
// layout's cut (an index above its block's 2^(Mb + F)).
inline constexpr uint32_t kHtStatisticsOutside = 1;
inline constexpr uint32_t kHtStatisticsTooDeep = 2;
inline constexpr uint32_t kHtStatisticsCut = 4;

struct HtCompactLayout {
  uint32_t planes = kHtPlanes;  // bit lengths 0..planes - 1 kept

  // `planes` for a tile whose blocks' largest Mb is `most_bitplanes`.
  MALLAT_HD static HtCompactLayout for_bitplanes(uint32_t most_bitplanes) {
    HtCompactLayout l;
    l.planes = most_bitplanes + 1 < static_cast<uint32_t>(kHtPlanes) ? most_bitplanes + 1 : kHtPlanes;
    return l;
  }
  MALLAT_HD size_t stride() const {
    const size_t bytes = size_t{12} * planes + size_t{2} * planes * planes;
    return (bytes + 7) / 8 * 8;
  }
  MALLAT_HD double* energy(unsigned char* block) const { return reinterpret_cast<double*>(block); }
  MALLAT_HD uint32_t* quads(unsigned char* block) const {
    return reinterpret_cast<uint32_t*>(block + size_t{8} * planes);
  }
  MALLAT_HD uint16_t* samples(unsigned char* block) const {
    return reinterpret_cast<uint16_t*>(block + size_t{12} * planes);
  }
  MALLAT_HD const double* energy(const unsigned char* block) const {
    return reinterpret_cast<const double*>(block);
  }
  MALLAT_HD const uint32_t* quads(const unsigned char* block) const {
    return reinterpret_cast<const uint32_t*>(block + size_t{8} * planes);
  }
  MALLAT_HD const uint16_t* samples(const unsigned char* block) const {
    return reinterpret_cast<const uint16_t*>(block + size_t{12} * planes);
  }

  // Whether the counts hold a quad of bit length `planes` or more (then a
  // sample or an energy there too), which the cut would lose.
  MALLAT_HD bool cuts(const HtPlaneCounts& c) const {
    for (int b = static_cast<int>(planes); b < kHtPlanes; ++b) {
      if (c.quads[b] != 0) return true;
    }
    return false;
  }

  // The block's statistics from its counts (and `deep`, as
  // ht_finish_statistics), entry by entry in plain sequence: what the
  // device's threads write side by side.
  MALLAT_HD void store(const HtPlaneCounts& c, const double* deep, int fraction_bits, unsigned char* block) const {
    for (uint32_t b = 0; b < planes; ++b) {
      energy(block)[b] = ht_energy_statistic(c, deep, static_cast<int>(b), fraction_bits);
      quads(block)[b] = c.quads[b];
    }
    for (uint32_t k = 0; k < planes * planes; ++k)
      samples(block)[k] = ht_sample_statistic(c, static_cast<int>(k / planes), static_cast<int>(k % planes));
  }

  // The full statistics of a block stored so (0 from `planes` up).
  MALLAT_HD void expand(const unsigned char* block, HtPlaneStatistics& out) const {
    for (int b = 0; b < kHtPlanes; ++b) {
      out.quads[b] = 0;
      out.energy[b] = 0;
      for (int l = 0; l < kHtPlanes; ++l) out.samples[b][l] = 0;
    }
    for (uint32_t b = 0; b < planes; ++b) {
      out.energy[b] = energy(block)[b];
      out.quads[b] = quads(block)[b];
      for (uint32_t l = 0; l < planes; ++l) out.samples[b][l] = samples(block)[b * planes + l];
    }
  }
};

}  // namespace mallat::entropy
