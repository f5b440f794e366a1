// Defines MALLAT_DWT_ISA::ring_kernels_53() and ring_kernels_97() (forward_ring_kernels.h):
// included by exactly one source file per instruction set.
#pragma once

#include <cstdint>

#include "dwt/cpu/forward_ring_kernels.h"
#include "dwt/cpu/wavefront.h"
#include "dwt/cpu/wavelet_53.h"
#include "dwt/cpu/wavelet_97.h"

namespace mallat::dwt::cpu::MALLAT_DWT_ISA {

template <typename T, typename W>
void forward_ring_iteration(T* const* rows, int64_t slots, int64_t w, int64_t h, bool odd_first, int64_t i) {
  WavefrontLifter<T> lifter{nullptr, w, w, h, odd_first};
  lifter.slots = slots;
  lifter.rows = rows;
  lifter.skip_scales = true;
  lifter.i = i;
  W::forward(lifter);
}

template <typename T, typename W>
const RingKernels<T>& make_ring_kernels() {
  static const RowScales<T, W> scales(true);
  static const RingKernels<T> k{&forward_ring_iteration<T, W>, count_steps<T, W>(true), scales.low, scales.high};
  return k;
}

const RingKernels<int32_t>& ring_kernels_53() { return make_ring_kernels<int32_t, Reversible53>(); }
const RingKernels<float>& ring_kernels_97() { return make_ring_kernels<float, Irreversible97>(); }

}  // namespace mallat::dwt::cpu::MALLAT_DWT_ISA
