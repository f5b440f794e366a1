// E.1.1.2 and H.1 per decoded value: how a code-block's decoded integers
// become coefficients, for the CPU's loops (dequantize.h) and the device
// runner's kernel (codec/stages/cuda/inverse_kernels.cu) alike, in C++17
// with no library beyond <cstdint>, so that nvcc compiles it too.
#pragma once

#include <cstdint>

#include "common/host_device.h"

namespace mallat::quant {

// How far a code-block's coding passes reached, as its block decoder says
// (entropy::DecodedCodeBlockInfo, in plain values): the lowest bit-plane a
// pass reached, and whether the last pass was a significance propagation
// pass. The default, plane 0 and no: every sample known to plane 0.
struct KnownPlanes {
  int lowest_plane = 0;
  bool ended_in_significance_pass = false;
};

// E.1.1.2: the bit-plane down to which a non-zero decoded magnitude is
// known. Every sample is known to the lowest plane a pass reached, except
// when the last pass was a significance propagation pass: then the samples
// significant before it have their refinement bit of that plane still to
// come. Those have a magnitude of at least 2^(lowest + 1); a sample that
// became significant in that last pass has exactly 2^lowest (a block
// decoder sets a magnitude to 2^p when its sample becomes significant at
// plane p and only adds lower bits later). So the value tells the two
// apart, and the decoder need not hand over a plane of them: this equals
// entropy::decode_code_block's known_plane for every non-zero sample
// (tests/quant/dequantize_test.cc checks it).
MALLAT_HD inline int known_plane(uint32_t magnitude, const KnownPlanes& known) {
  const int lowest = known.lowest_plane;
  const bool behind = known.ended_in_significance_pass && lowest + 1 < 32 &&
                      magnitude >= (uint32_t{1} << (lowest + 1));
  return lowest + (behind ? 1 : 0);
}

// H.1 (max-shift): a decoded magnitude of at least 2^roi_shift belongs to
// the region and is shifted down by roi_shift, with the plane it is known
// to; a background one stays as it is.
struct KnownMagnitude {
  uint32_t magnitude;
  int plane;
};
MALLAT_HD inline KnownMagnitude after_roi(uint32_t magnitude, int plane, int roi_shift) {
  if (roi_shift > 0 && roi_shift < 32 && magnitude >= (uint32_t{1} << roi_shift)) {
    return {magnitude >> roi_shift, plane > roi_shift ? plane - roi_shift : 0};
  }
  return {magnitude, plane};
}

// |v| as the loops have always taken it (std::abs, then unsigned): 2^31 for
// INT32_MIN.
MALLAT_HD inline uint32_t magnitude_of(int32_t v) {
  return v < 0 ? 0u - static_cast<uint32_t>(v) : static_cast<uint32_t>(v);
}

// reconstruct_reversible's rule for one decoded value (below): the CPU's
// loop and the device runner's kernel (codec/stages/cuda/) both call it.
MALLAT_HD inline int32_t reconstructed_reversible(int32_t v, const KnownPlanes& known, int roi_shift) {
  if (v == 0) return 0;
  const uint32_t magnitude = magnitude_of(v);
  const KnownMagnitude k = after_roi(magnitude, known_plane(magnitude, known), roi_shift);
  const uint32_t m = k.plane > 0 ? k.magnitude + (uint32_t{1} << (k.plane - 1)) : k.magnitude;
  return v < 0 ? -static_cast<int32_t>(m) : static_cast<int32_t>(m);
}

// reconstruct_irreversible's rule for one decoded value, half_step =
// 0.5f * Delta_b: (2 |q| + 2^p) half-steps with q's sign, the integer
// exact in int64 and rounded once to float.
MALLAT_HD inline float reconstructed_irreversible(int32_t v, const KnownPlanes& known, int roi_shift,
                                                  float half_step) {
  if (v == 0) return 0.0f;
  const uint32_t magnitude = magnitude_of(v);
  const KnownMagnitude k = after_roi(magnitude, known_plane(magnitude, known), roi_shift);
  const int64_t d = 2 * int64_t{k.magnitude} + (int64_t{1} << k.plane);
  return static_cast<float>(v < 0 ? -d : d) * half_step;
}

}  // namespace mallat::quant
