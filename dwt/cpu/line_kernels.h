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
  // inverse_row_apart: they may be overwritten, unless apart_reads_only),
  // each sample of the row times `factor` after (1: as it is).
  void (*inverse_row_apart)(T* s, T* d, T* row, int64_t n, int64_t i0, T factor);
  // Sweep iteration i of VER_SR over a ring of `slots` rows of w samples,
  // h rows in all, row 0 high-pass when odd_first (ring_sweep.h). It leaves
  // out the wavelet's scaling steps: each row of a column of more than one
  // is loaded scaled by low_scale or high_scale (inverse_row_apart's factor).
  void (*ring_iteration)(T* ring, int64_t w, int64_t h, int64_t slots, bool odd_first, int64_t i);
  // F.3.7: a lone row at `coordinate` (halved when odd).
  void (*lone_row)(T* p, int64_t count, int64_t coordinate);
  // Row r is final after sweep iteration r + steps.
  int steps;
  // Whether inverse_row_apart only reads s and d (the one-pass HOR_SR of
  // hor_sr_53.h, hor_sr_97.h), so that a row another ring still reads may be given.
  bool apart_reads_only;
  // inverse_row_apart by this build's lifting loops (lifting.h), which it
  // equals bit for bit: what the one-pass kernels are tested against. It
  // overwrites s and d.
  void (*inverse_row_apart_lifted)(T* s, T* d, T* row, int64_t n, int64_t i0, T factor);
  T low_scale, high_scale;
  // inverse_row_apart into slot i (i < h, n >= 2, s and d only read) and
  // then ring_iteration i, a span of columns at a time while it is in L1,
  // bit for bit the two calls (ring_sweep.h); null where this build has no
  // HOR_SR of a span of a row (apart_reads_only's one-pass kernels).
  void (*load_and_iterate)(const T* s, const T* d, T* ring, int64_t w, int64_t x0, int64_t h, int64_t slots,
                           bool odd_first, int64_t i, T factor);
};

namespace generic {
const LineKernels<int32_t>& line_kernels_53();
const LineKernels<float>& line_kernels_97();
}  // namespace generic
namespace avx2 {
const LineKernels<int32_t>& line_kernels_53();
const LineKernels<float>& line_kernels_97();
}  // namespace avx2

// The build for isa (kernels.cc, where MALLAT_DWT_AVX2 says whether this
// library has the AVX2 build; its users do not see that definition).
const LineKernels<int32_t>& line_kernels_53(Isa isa);
const LineKernels<float>& line_kernels_97(Isa isa);

}  // namespace mallat::dwt::cpu
