// An HT code-block's plane statistics (plane_estimate.h): plain counts
// in fixed-size arrays, with no other header, so that the device's gather
// (codec/stages/cuda/) fills the same struct the host's estimate reads.
#pragma once

#include <cstdint>

namespace mallat::entropy {

// Bit lengths of an index magnitude: 0..31 (Mb + F <= 31).
inline constexpr int kHtPlanes = 32;

// Counts over one block's quantisation indices, by the bit length of the
// index magnitude v = |q| >> F (F fraction bits below the index).
struct HtPlaneStatistics {
  // quads[b]: 2x2 quads (15444-15 B.2, quads at even rows and columns, cut
  // at the block's edges) whose largest v has bit length b.
  uint32_t quads[kHtPlanes] = {};
  // samples[b][l]: samples of bit length l (1 <= l <= b) in quads of bit
  // length b. A sample significant at plane p (l > p) costs about b - p
  // MagSgn bits: its quad's exponent bound (B.3's U_q).
  uint16_t samples[kHtPlanes][kHtPlanes] = {};
  // energy[l]: the sum of |q|^2 of the samples of bit length l, in units of
  // the index squared (the fraction bits counted).
  double energy[kHtPlanes] = {};
};

}  // namespace mallat::entropy
