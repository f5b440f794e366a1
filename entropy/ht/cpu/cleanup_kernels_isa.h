// Defines MALLAT_HT_ISA::cleanup_kernels() (cleanup_kernels.h): included by
// exactly one source file per instruction set, which first defines
// MALLAT_HT_ISA (its namespace), MALLAT_HT_ISA_NAME, MALLAT_HT_KERNEL (the
// attributes its two entry points are built with: the target attribute, or
// nothing for the generic build) and, in that namespace, its `Steps` (the
// vector steps cleanup_encoder_kernel.h and cleanup_decoder_kernel.h take)
// and, where it decodes with another build's decoder, MALLAT_HT_DECODER.
#pragma once

#include "entropy/ht/cpu/cleanup_decoder_kernel.h"
#include "entropy/ht/cpu/cleanup_encoder_kernel.h"
#include "entropy/ht/cpu/cleanup_kernels.h"

namespace mallat::entropy::ht::cpu::MALLAT_HT_ISA {

MALLAT_HT_KERNEL void encode(PlaneView<const int32_t> coefficients, int shift, std::vector<uint8_t>& segment) {
  encode_kernel<Steps>(coefficients, shift, segment);
}

#ifndef MALLAT_HT_DECODER
MALLAT_HT_KERNEL bool decode(std::span<const uint8_t> segment, int p, int planes_above, PlaneView<int32_t> out) {
  return decode_kernel<Steps>(segment, p, planes_above, out);
}
#define MALLAT_HT_DECODER decode
#endif

const CleanupKernels& cleanup_kernels() {
  static const CleanupKernels kernels{MALLAT_HT_ISA_NAME, &encode, &MALLAT_HT_DECODER};
  return kernels;
}

}  // namespace mallat::entropy::ht::cpu::MALLAT_HT_ISA
