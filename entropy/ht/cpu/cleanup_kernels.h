// The fast HT cleanup coders (15444-15 Annex C) as kernels per instruction
// set, picked once at run time (cleanup_kernels.cc): one source for each
// direction (cleanup_encoder_kernel.h, cleanup_decoder_kernel.h) built by
// one file per instruction set (cleanup_kernels_generic.cc,
// cleanup_kernels_avx2.cc, cleanup_kernels_avx512.cc), each in its own
// namespace and with its own vector steps. The outputs do not depend on
// the instruction set; the tests hold every build to the plain references.
// Internal to the HT coder.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/plane_view.h"

// x86-64 with GCC or Clang: the AVX2 and AVX-512 kernels are built (each
// function for its instruction set through the target attribute, so the
// build stays portable to any x86-64).
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define MALLAT_HT_X86 1
#else
#define MALLAT_HT_X86 0
#endif

// The instruction sets of each x86 build, for the target attribute: AVX2
// with BMI1/BMI2 (bit-field extraction, pdep/pext), LZCNT and POPCNT; and
// AVX-512 (F, CD for the lane-wise leading zero count, BW, VL) on top.
#define MALLAT_HT_AVX2_TARGET "avx2,bmi,bmi2,lzcnt,popcnt"
#define MALLAT_HT_AVX512_TARGET "avx2,bmi,bmi2,lzcnt,popcnt,avx512f,avx512cd,avx512bw,avx512vl"

namespace mallat::entropy::ht::cpu {

struct CleanupKernels {
  const char* name;
  // As encode_cleanup and decode_cleanup (entropy/ht/passes.h).
  void (*encode)(PlaneView<const int32_t> coefficients, int shift, std::vector<uint8_t>& segment);
  bool (*decode)(std::span<const uint8_t> segment, int p, int planes_above, PlaneView<int32_t> out);
};

namespace generic {
const CleanupKernels& cleanup_kernels();
}  // namespace generic
#if MALLAT_HT_X86
namespace avx2 {
const CleanupKernels& cleanup_kernels();
// The AVX2 build's decoder, which the AVX-512 build's kernels decode with.
bool decode(std::span<const uint8_t> segment, int p, int planes_above, PlaneView<int32_t> out);
}  // namespace avx2
namespace avx512 {
const CleanupKernels& cleanup_kernels();
}  // namespace avx512
#endif

}  // namespace mallat::entropy::ht::cpu
