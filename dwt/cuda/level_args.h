// What one fused 2-D level kernel needs to know, filled on the host (plain
// data, no CUDA types) and passed to the kernel by value.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mallat::dwt::cuda {

// One axis of a level's region [u0, u1) (B-14 at resolution NL - l + 1). The
// parity of the absolute coordinate decides low/high (F.3.8, F.4.8), so the
// kernels only need u0's parity, never u0 itself.
struct LevelAxis {
  int n = 0;      // u1 - u0, samples of the region along this axis
  int p0 = 0;     // u0 & 1
  int nlow = 0;   // ceil(u1 / 2) - ceil(u0 / 2): low-pass samples, packed first
};

// A pitched 2-D array on the device; pitch in elements.
template <typename T>
struct DevicePlane {
  T* data = nullptr;
  ptrdiff_t pitch = 0;
};

// Forward: `in` holds the region in natural order; the level writes LL to
// `ll` and HL, LH, HH to their packed places in `out` (geometry.h).
// Inverse: LL is read from `ll`, HL, LH, HH from `in` (packed); the region
// comes back in natural order in `out`.
template <typename T>
struct LevelArgs {
  LevelAxis x, y;
  DevicePlane<const T> in;
  DevicePlane<T> out;
  DevicePlane<T> ll;  // forward: written; inverse: read
  // 9/7 only: per-axis factors for the low (index 0) and high (1) samples,
  // 1/K and K (F.4.8.2) or, for a lone sample, 1 and 2 (F.4.7); the inverse
  // uses K and 1/K, or 1 and 1/2 (F.3.7).
  float sx[2] = {1, 1};
  float sy[2] = {1, 1};
};

}  // namespace mallat::dwt::cuda
