// Defines MALLAT_DWT_ISA::kernels_53() and kernels_97(): included by exactly
// one source file per instruction set, which defines MALLAT_DWT_ISA first
// (kernels_generic.cc, kernels_avx2.cc).
#pragma once

#include <cstdint>

#include "dwt/cpu/kernels.h"
#include "dwt/cpu/lifting.h"
#include "dwt/cpu/wavefront.h"
#include "dwt/cpu/wavelet_53.h"
#include "dwt/cpu/wavelet_97.h"

namespace mallat::dwt::cpu::MALLAT_DWT_ISA {

template <typename T, typename W>
const Kernels<T>& make_kernels() {
  static const Kernels<T> k{&forward_row<T, W>, &inverse_row<T, W>, &forward_strip<T, W>,
                            &inverse_strip<T, W>, &forward_row_apart<T, W>, &forward_row_lifted<T, W>};
  return k;
}

const Kernels<int32_t>& kernels_53() { return make_kernels<int32_t, Reversible53>(); }
const Kernels<float>& kernels_97() { return make_kernels<float, Irreversible97>(); }

}  // namespace mallat::dwt::cpu::MALLAT_DWT_ISA
