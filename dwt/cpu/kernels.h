// The kernels a wavelet provides to the CPU backend's level loop, and their
// builds for each instruction set (isa_kernels.h), picked at run time.
#pragma once

#include <cstdint>

#include "dwt/cpu/cpu_backend.h"

namespace mallat::dwt::cpu {

// Rows: one row of n samples at coordinate i0, scratch of n elements.
// Strips: w columns by h rows at coordinate y0, scratch of w * h elements.
template <typename T>
struct Kernels {
  void (*forward_row)(T* row, int64_t n, int64_t i0, T* scratch);
  void (*inverse_row)(T* row, int64_t n, int64_t i0, T* scratch);
  void (*forward_strip)(T* top, int64_t stride, int64_t w, int64_t h, int64_t y0, T* scratch);
  void (*inverse_strip)(T* top, int64_t stride, int64_t w, int64_t h, int64_t y0, T* scratch);
  // HOR_SD of `in` (left as it is) into its low-pass and high-pass samples
  // where they go (lifting.h's forward_row_apart): forward_row's results, in
  // one pass where the wavelet has one for this instruction set; each
  // sample times `factor` first (1: as it is).
  void (*forward_row_apart)(const T* in, T* low, T* high, int64_t n, int64_t i0, T factor);
  // forward_row by this build's lifting loops (lifting.h), which the
  // one-pass kernels equal bit for bit: what they are tested against.
  void (*forward_row_lifted)(T* row, int64_t n, int64_t i0, T* scratch);
};

// The same source compiled once per instruction set (kernels_generic.cc,
// kernels_avx2.cc), each in its own namespace so that no inline function is
// shared between builds.
namespace generic {
const Kernels<int32_t>& kernels_53();
const Kernels<float>& kernels_97();
}  // namespace generic
namespace avx2 {
const Kernels<int32_t>& kernels_53();
const Kernels<float>& kernels_97();
}  // namespace avx2

// kBest resolved for this CPU; an instruction set this build or CPU lacks
// resolves to kGeneric.
Isa resolve_isa(Isa isa);
const Kernels<int32_t>& kernels_53(Isa isa);
const Kernels<float>& kernels_97(Isa isa);

}  // namespace mallat::dwt::cpu
