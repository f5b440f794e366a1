// The vertical lifting of the line-based forward DWT (dwt/line_forward.h):
// one sweep iteration of wavefront.h's schedule over rows held in a ring,
// built once per instruction set like the backend's kernels (kernels.h).
// The steps are the wavelets' own (wavelet_53.h, wavelet_97.h) applied to
// the same samples in the same order as forward_strip applies them, so the
// results equal the CPU backend's bit for bit, 9/7 included.
#pragma once

#include <cstdint>

#include "dwt/cpu/cpu_backend.h"

namespace mallat::dwt::cpu {

template <typename T>
struct RingKernels {
  // Sweep iteration i (wavefront.h) over a column of h rows, row r held at
  // rows[r % slots]; rows i - steps - 1 .. i + 1 must be there. It leaves
  // out the wavelet's scaling steps: a finished row of more than one is
  // still to be scaled by low_scale or high_scale (forward_row_apart's
  // factor does it).
  void (*forward_iteration)(T* const* rows, int64_t slots, int64_t w, int64_t h, bool odd_first, int64_t i);
  int steps;  // lifting and scaling steps: iteration i finishes row i - (steps - 1)
  T low_scale, high_scale;
};

namespace generic {
const RingKernels<int32_t>& ring_kernels_53();
const RingKernels<float>& ring_kernels_97();
}  // namespace generic
namespace avx2 {
const RingKernels<int32_t>& ring_kernels_53();
const RingKernels<float>& ring_kernels_97();
}  // namespace avx2

const RingKernels<int32_t>& ring_kernels_53(Isa isa);
const RingKernels<float>& ring_kernels_97(Isa isa);

}  // namespace mallat::dwt::cpu
