// What an HT code-block's cleanup pass would cost and remove at each plane,
// estimated from one pass over its quantisation indices, without coding it.
// Rate control under a size or quality target then codes a block at the
// plane a global slope chooses and one neighbour, not at every plane
// (complexity-constrained HT encoding; 15444-15 Annex B's cleanup pass
// cannot be truncated, so each plane is a separate coding).
//
// Everything here is plain fixed-size arrays per block, filled from the
// block's samples alone, so that a device coder can compute them one block
// per thread group beside quantisation (docs/ARCHITECTURE.md, "HT rate
// control").
#pragma once

#include <cstdint>

#include "common/plane_view.h"
#include "entropy/ht/passes.h"
#include "entropy/ht/plane_statistics.h"

namespace mallat::entropy {

// The estimate per cleanup plane p: bytes of the cleanup segment coding
// v >> p, and the squared error left after it, in Tier-1's units (the
// index squared; entropy/ebcot/ebcot.h's distortion_decrease is energy
// less it), the decoder reconstructing at the middle of each interval
// (E.1.1.2).
struct HtPlaneEstimate {
  // Bit length of the largest v: the cleanup at any plane p >= planes codes
  // nothing.
  int planes = 0;
  float bytes[kHtPlanes] = {};
  // The error left, not the decrease: a float's 24 bits hold it to a few
  // parts in 10^8 of itself, so the small decreases between fine planes
  // survive however large the block's energy (deep samples, 16 bits and
  // more); a decrease near the energy would lose them.
  float error_left[kHtPlanes] = {};
  // The squared error with nothing sent (index units).
  double energy = 0;
  // The decrease of squared error from an all-zero block at plane p.
  double decrease(int p) const { return energy - error_left[p]; }
};

// One pass over the block's indices (two's complement, `fraction_bits` F
// below each index). Where the CPU has AVX2 (or AVX-512; `isa` as the HT
// cleanup coder's, entropy/ht/passes.h), eight quads at a time in vectors,
// the energies summed exactly as integers (blocks whose magnitudes are
// below 2^20, where that equals the reference's double sums); else, and
// for other blocks, the reference. Where every magnitude is known to lie
// below 2^magnitude_bits (a quantiser clips its indices below 2^Mb,
// 15444-1 E-2: with F fraction bits, 2^(Mb + F)), a bound of 20 bits or
// fewer spares the fast pass its look for the block's largest.
void gather_ht_plane_statistics(PlaneView<const int32_t> indices, int fraction_bits, HtPlaneStatistics& out,
                                int magnitude_bits = 32, ht::CleanupIsa isa = ht::CleanupIsa::kBest);
// The plain pass, a quad at a time: what the fast one is tested against.
void gather_ht_plane_statistics_reference(PlaneView<const int32_t> indices, int fraction_bits,
                                          HtPlaneStatistics& out);

// The estimate from the statistics: bytes from a fitted model of the three
// streams (MagSgn bits of the significant samples, VLC codewords per
// significant quad, MEL and VLC symbols of the insignificant quads),
// decreases from the energies less the error left in each significant
// sample (a uniform error over its interval).
HtPlaneEstimate estimate_ht_planes(const HtPlaneStatistics& statistics, int fraction_bits);
// The same with each plane's sums taken afresh over every bit length and
// sample length: what estimate_ht_planes is tested against.
HtPlaneEstimate estimate_ht_planes_reference(const HtPlaneStatistics& statistics, int fraction_bits);

}  // namespace mallat::entropy
