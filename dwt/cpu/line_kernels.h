// The kernels of the line-based inverse DWT (dwt/line_inverse.h), built per
// instruction set like kernels.h's and picked the same way, so that a line
// decode gives what the CPU backend of that instruction set gives.
#pragma once

#include <cstdint>

#include "dwt/cpu/cpu_backend.h"
#include "dwt/cpu/kernels.h"

namespace mallat::dwt::cpu {

template <typename T>
struct LineKernels {
  // HOR_SR of one row of n samples at coordinate i0 (kernels.h's).
  void (*inverse_row)(T* row, int64_t n, int64_t i0, T* scratch);
  // The same with the row's low-pass and high-pass samples apart (lifting.h's
  // inverse_row_apart: they are overwritten).
  void (*inverse_row_apart)(T* s, T* d, T* row, int64_t n, int64_t i0);
  // Sweep iteration i of VER_SR over a ring of `slots` rows of w samples,
  // h rows in all, row 0 high-pass when odd_first (ring_sweep.h).
  void (*ring_iteration)(T* ring, int64_t w, int64_t h, int64_t slots, bool odd_first, int64_t i);
  // F.3.7: a lone row at `coordinate` (halved when odd).
  void (*lone_row)(T* p, int64_t count, int64_t coordinate);
  // Row r is final after sweep iteration r + steps.
  int steps;
};

namespace generic {
const LineKernels<int32_t>& line_kernels_53();
const LineKernels<float>& line_kernels_97();
}  // namespace generic
namespace avx2 {
const LineKernels<int32_t>& line_kernels_53();
const LineKernels<float>& line_kernels_97();
}  // namespace avx2

inline const LineKernels<int32_t>& line_kernels_53(Isa isa) {
#if defined(MALLAT_DWT_AVX2)
  if (resolve_isa(isa) == Isa::kAvx2) return avx2::line_kernels_53();
#endif
  (void)isa;
  return generic::line_kernels_53();
}
inline const LineKernels<float>& line_kernels_97(Isa isa) {
#if defined(MALLAT_DWT_AVX2)
  if (resolve_isa(isa) == Isa::kAvx2) return avx2::line_kernels_97();
#endif
  (void)isa;
  return generic::line_kernels_97();
}

}  // namespace mallat::dwt::cpu
