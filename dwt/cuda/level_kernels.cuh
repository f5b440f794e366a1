// The fused 2-D kernels of one decomposition level, register-based: each
// warp owns a strip of 64 columns (two per lane) by R + 2H rows, H being the
// filter's halo (2 for 5/3, 4 for 9/7). It loads the strip once, with the
// symmetric extension of F.3.7 folded into the addresses, lifts it
// vertically in registers and horizontally through warp shuffles, and
// writes the inner 64 - 2H columns by R rows once. One read and one write of
// the level's region in device memory (the halo re-reads hit L1 or L2).
//
// Dropped as slower: 32 rows per warp (more registers, lower occupancy);
// walking each warp down chunks of 16 rows carrying the halo in registers
// (the loads of a chunk wait for the previous one); a shared-memory tile of
// 64 x 32 with barriers per step (instruction-bound, far from the copy
// bandwidth); blocks of 8 warps stacked vertically to share halo rows in L1.
#pragma once

#include <cstdint>

#include "dwt/cuda/level_args.h"
#include "dwt/cuda/lifting.cuh"

namespace mallat::dwt::cuda::detail {

constexpr int kWarpsPerBlock = 4;
constexpr int kLevelThreads = 32 * kWarpsPerBlock;

// F.3.7 periodic symmetric extension: the index in [0, n) that position c
// (relative to the region's first sample) copies. Mirroring keeps parity,
// so an extended sample is low-pass exactly when its position is.
__device__ __forceinline__ int mirror(int c, int n) {
  if (c >= 0 && c < n) return c;
  if (n == 1) return 0;
  const int period = 2 * (n - 1);
  c %= period;
  if (c < 0) c += period;
  return c < n ? c : period - c;
}

// Index in the packed layout of a low-pass (even absolute) sample at
// relative position c: (u0 + c) / 2 - ceil(u0 / 2) = (c - p0) / 2; of a
// high-pass one: nlow + (u0 + c - 1) / 2 - floor(u0 / 2) = nlow + (c + p0 - 1) / 2.
__device__ __forceinline__ int low_index(int c, const LevelAxis& a) { return (c - a.p0) >> 1; }
__device__ __forceinline__ int high_index(int c, const LevelAxis& a) { return a.nlow + ((c + a.p0 - 1) >> 1); }

template <typename T>
struct Vec2;
template <>
struct Vec2<int32_t> { using type = int2; };
template <>
struct Vec2<float> { using type = float2; };

// Per-type details: the filter's halo and steps, and where the per-axis
// factors go. 5/3 has only the lone-sample rule (F.3.7, F.4.7), applied
// where the reference applies it, since integer rounding does not commute;
// 9/7 scales each axis where the CPU backend does (F.4.8.2 steps 5-6 after
// that axis's lifting forward, F.3.8.2 steps 1-2 before it inverse), so
// that the floats round alike and the results are the CPU's bit for bit
// (the lifting steps are fused multiply-adds on both: Lift97 and the CPU's
// -mfma kernels). Folding both axes' factors into one multiply was as fast
// and rounded otherwise.
template <typename T>
struct Filter;

template <>
struct Filter<int32_t> {
  static constexpr int kHalo = 2;
  template <typename A>
  __device__ static void forward(A a) { forward_53(a); }
  template <typename A>
  __device__ static void inverse(A a) { inverse_53(a); }
  // Forward: columns first (F.4.2), so a lone odd row is doubled on load and
  // a lone odd column on write.
  __device__ static int32_t forward_load(int32_t v, const LevelArgs<int32_t>& a, int) {
    return (a.y.n == 1 && a.y.p0) ? v * 2 : v;
  }
  __device__ static int32_t forward_store(int32_t v, const LevelArgs<int32_t>& a, int col_high, int) {
    return (col_high && a.x.n == 1 && a.x.p0) ? v * 2 : v;
  }
  // Nothing between the two axes for the 5/3 (the loop left out: it cost
  // the 5/3 forward a register spill).
  static constexpr bool kScalesBetweenAxes = false;
  __device__ static int32_t between_axes(int32_t v, const LevelArgs<int32_t>&, int) { return v; }
  // Inverse: rows first (F.3.2), so a lone odd column is halved on load and a
  // lone odd row on write; C division truncates, as the reference does.
  __device__ static int32_t inverse_load(int32_t v, const LevelArgs<int32_t>& a, int col_high, int) {
    return (col_high && a.x.n == 1 && a.x.p0) ? v / 2 : v;
  }
  __device__ static int32_t inverse_store(int32_t v, const LevelArgs<int32_t>& a, int) {
    return (a.y.n == 1 && a.y.p0) ? v / 2 : v;
  }
};

template <>
struct Filter<float> {
  static constexpr int kHalo = 4;
  template <typename A>
  __device__ static void forward(A a) { forward_97(a); }
  template <typename A>
  __device__ static void inverse(A a) { inverse_97(a); }
  __device__ static float forward_load(float v, const LevelArgs<float>&, int) { return v; }
  static constexpr bool kScalesBetweenAxes = true;
  // Forward: the rows' factor after the columns' lifting, the columns'
  // after the rows'; inverse: the columns' factor before the rows' lifting
  // (on load), the rows' before the columns'.
  __device__ static float between_axes(float v, const LevelArgs<float>& a, int row_high) {
    return v * (row_high ? a.sy[1] : a.sy[0]);
  }
  __device__ static float forward_store(float v, const LevelArgs<float>& a, int col_high, int) {
    return v * (col_high ? a.sx[1] : a.sx[0]);
  }
  __device__ static float inverse_load(float v, const LevelArgs<float>& a, int col_high, int) {
    return v * (col_high ? a.sx[1] : a.sx[0]);
  }
  __device__ static float inverse_store(float v, const LevelArgs<float>&, int) { return v; }
};

// Where a warp's strip lies: lane L holds the strip's columns 2L and 2L+1,
// relative columns cx and cx + 1 of the region, cx of even absolute
// coordinate, and rows cy0 .. cy0 + NR - 1. Strips advance by the 64 - 2H
// columns and R rows they output, and start on even absolute coordinates;
// the warps of a block take horizontally adjacent strips.
template <typename T, int R>
struct Strip {
  static constexpr int H = Filter<T>::kHalo;
  static constexpr int NR = R + 2 * H;
  static constexpr int kOutCols = 64 - 2 * H;
  int cx, cy0;
  bool live;     // the warp has columns inside the region
  bool writer;   // this lane's columns are not halo

  __device__ Strip(const LevelArgs<T>& a) {
    const int strip = static_cast<int>(blockIdx.x) * kWarpsPerBlock + static_cast<int>(threadIdx.y);
    const int lane = static_cast<int>(threadIdx.x);
    live = strip * kOutCols - a.x.p0 < a.x.n;
    cx = strip * kOutCols - a.x.p0 - H + 2 * lane;
    cy0 = static_cast<int>(blockIdx.y) * R - a.y.p0 - H;
    writer = lane >= H / 2 && lane < 32 - H / 2;
  }
};

// Forward level (2D_SD, F.4.2): columns, then rows, then deinterleave into
// the packed layout: LL to a.ll, HL, LH, HH to a.out.
template <typename T, int R>
__global__ void __launch_bounds__(kLevelThreads)
forward_level_kernel(const LevelArgs<T> a) {
  using S = Strip<T, R>;
  constexpr int H = S::H, NR = S::NR;
  const S st(a);
  if (!st.live) return;  // whole warps only: the shuffles need all 32 lanes

  // All NR loads of a lane are issued before the first use, which keeps
  // enough bytes in flight without a deep pipeline.
  T e[NR], o[NR];
  const int gx0 = mirror(st.cx, a.x.n), gx1 = mirror(st.cx + 1, a.x.n);
  // Two consecutive samples starting on an even column are one aligned
  // 8-byte load (pitches are multiples of 32 elements).
  const bool pair = gx1 == gx0 + 1 && (gx0 & 1) == 0;
#pragma unroll
  for (int j = 0; j < NR; ++j) {
    const T* row = a.in.data + mirror(st.cy0 + j, a.y.n) * a.in.pitch;
    if (pair) {
      const auto v = *reinterpret_cast<const typename Vec2<T>::type*>(row + gx0);
      e[j] = v.x;
      o[j] = v.y;
    } else {
      e[j] = row[gx0];
      o[j] = row[gx1];
    }
  }
#pragma unroll
  for (int j = 0; j < NR; ++j) {
    e[j] = Filter<T>::forward_load(e[j], a, j & 1);
    o[j] = Filter<T>::forward_load(o[j], a, j & 1);
  }

  if (a.y.n > 1) Filter<T>::forward(VerticalSteps<NR, T>{e, o});
  if constexpr (Filter<T>::kScalesBetweenAxes) {
#pragma unroll
    for (int j = 0; j < NR; ++j) {
      e[j] = Filter<T>::between_axes(e[j], a, j & 1);
      o[j] = Filter<T>::between_axes(o[j], a, j & 1);
    }
  }
  if (a.x.n > 1) Filter<T>::forward(HorizontalSteps<NR, H, H + R, T>{e, o});
  if (!st.writer) return;

  const bool even_in = st.cx >= 0 && st.cx < a.x.n;
  const bool odd_in = st.cx + 1 >= 0 && st.cx + 1 < a.x.n;
  const int lx = low_index(st.cx, a.x), hx = high_index(st.cx + 1, a.x);
#pragma unroll
  for (int j = H; j < H + R; ++j) {
    const int gy = st.cy0 + j;
    if (gy < 0 || gy >= a.y.n) continue;
    const int row_high = j & 1;
    const T lo = Filter<T>::forward_store(e[j], a, 0, row_high);
    const T hi = Filter<T>::forward_store(o[j], a, 1, row_high);
    if (!row_high) {
      const int py = low_index(gy, a.y);
      if (even_in) a.ll.data[py * a.ll.pitch + lx] = lo;
      if (odd_in) a.out.data[py * a.out.pitch + hx] = hi;
    } else {
      const int py = high_index(gy, a.y);
      T* row = a.out.data + py * a.out.pitch;
      if (even_in) row[lx] = lo;
      if (odd_in) row[hx] = hi;
    }
  }
}

// Inverse level (2D_SR, F.3.2): interleave from the packed bands while
// loading (LL from a.ll, HL, LH, HH from a.in), rows, then columns, and
// write the region in natural order to a.out.
template <typename T, int R>
__global__ void __launch_bounds__(kLevelThreads)
inverse_level_kernel(const LevelArgs<T> a) {
  using S = Strip<T, R>;
  constexpr int H = S::H, NR = S::NR;
  const S st(a);
  if (!st.live) return;

  T e[NR], o[NR];
  // Mirrored positions keep their parity, so the even column stays low-pass.
  // The exception is a lone sample (n = 1), where everything mirrors onto
  // it: the column of the other parity is then read from index 0 (clamped,
  // in bounds), never lifted across and never written.
  const int lx = max(low_index(mirror(st.cx, a.x.n), a.x), 0);
  const int hx = high_index(mirror(st.cx + 1, a.x.n), a.x);
#pragma unroll
  for (int j = 0; j < NR; ++j) {
    const int gy = mirror(st.cy0 + j, a.y.n);
    if ((j & 1) == 0) {
      const int py = max(low_index(gy, a.y), 0);
      e[j] = a.ll.data[py * a.ll.pitch + lx];
      o[j] = a.in.data[py * a.in.pitch + hx];
    } else {
      const T* row = a.in.data + high_index(gy, a.y) * a.in.pitch;
      e[j] = row[lx];
      o[j] = row[hx];
    }
  }
#pragma unroll
  for (int j = 0; j < NR; ++j) {
    e[j] = Filter<T>::inverse_load(e[j], a, 0, j & 1);
    o[j] = Filter<T>::inverse_load(o[j], a, 1, j & 1);
  }

  if (a.x.n > 1) Filter<T>::inverse(HorizontalSteps<NR, 0, NR, T>{e, o});
  if constexpr (Filter<T>::kScalesBetweenAxes) {
#pragma unroll
    for (int j = 0; j < NR; ++j) {
      e[j] = Filter<T>::between_axes(e[j], a, j & 1);
      o[j] = Filter<T>::between_axes(o[j], a, j & 1);
    }
  }
  if (a.y.n > 1) Filter<T>::inverse(VerticalSteps<NR, T>{e, o});
  if (!st.writer) return;

  const bool even_in = st.cx >= 0 && st.cx < a.x.n;
  const bool odd_in = st.cx + 1 >= 0 && st.cx + 1 < a.x.n;
  const bool pair = even_in && odd_in && (st.cx & 1) == 0;
#pragma unroll
  for (int j = H; j < H + R; ++j) {
    const int gy = st.cy0 + j;
    if (gy < 0 || gy >= a.y.n) continue;
    T* row = a.out.data + gy * a.out.pitch + st.cx;
    const T lo = Filter<T>::inverse_store(e[j], a, j & 1);
    const T hi = Filter<T>::inverse_store(o[j], a, j & 1);
    if (pair) {
      *reinterpret_cast<typename Vec2<T>::type*>(row) = {lo, hi};
    } else {
      if (even_in) row[0] = lo;
      if (odd_in) row[1] = hi;
    }
  }
}

}  // namespace mallat::dwt::cuda::detail
