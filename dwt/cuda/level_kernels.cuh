// The fused 2-D kernels of one decomposition level: each block loads a tile
// of TW x TH samples plus a halo of H on every side into shared memory
// (symmetric extension, F.3.7, applied while loading), lifts it vertically
// and horizontally there, and writes its share of the result once. One read
// and one write of the level's region in device memory; the halo re-reads
// mostly hit L2.
#pragma once

#include <cstdint>

#include "dwt/cuda/level_args.h"
#include "dwt/cuda/lifting.cuh"

namespace mallat::dwt::cuda::detail {

constexpr int kLevelThreads = 256;

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

// Where a sample of the region at relative position c (in [0, n)) lands in
// the packed layout: low-pass ones first, then the high-pass ones.
// Low: (u0 + c) / 2 - ceil(u0 / 2) = (c - p0) / 2; high: nlow + (c + p0 - 1) / 2.
__device__ __forceinline__ int packed_index(int c, const LevelAxis& a) {
  return ((c + a.p0) & 1) == 0 ? (c - a.p0) >> 1 : a.nlow + ((c + a.p0 - 1) >> 1);
}

// Per-type details: the filter's halo and steps, and where the per-axis
// factors go. 5/3 has only the lone-sample rule (F.3.7, F.4.7), applied
// where the reference applies it, since integer rounding does not commute;
// 9/7 folds the K scaling of both axes into one multiply (linear, so the
// place does not matter beyond float rounding).
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
  __device__ static int32_t forward_load(int32_t v, const LevelArgs<int32_t>& a, int, int) {
    return (a.y.n == 1 && a.y.p0) ? v * 2 : v;
  }
  __device__ static int32_t forward_store(int32_t v, const LevelArgs<int32_t>& a, int, int) {
    return (a.x.n == 1 && a.x.p0) ? v * 2 : v;
  }
  // Inverse: rows first (F.3.2), so a lone odd column is halved on load and a
  // lone odd row on write; C division truncates, as the reference does.
  __device__ static int32_t inverse_load(int32_t v, const LevelArgs<int32_t>& a, int, int) {
    return (a.x.n == 1 && a.x.p0) ? v / 2 : v;
  }
  __device__ static int32_t inverse_store(int32_t v, const LevelArgs<int32_t>& a, int, int) {
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
  __device__ static float forward_load(float v, const LevelArgs<float>&, int, int) { return v; }
  __device__ static float forward_store(float v, const LevelArgs<float>& a, int col_high, int row_high) {
    return v * ((col_high ? a.sx[1] : a.sx[0]) * (row_high ? a.sy[1] : a.sy[0]));
  }
  __device__ static float inverse_load(float v, const LevelArgs<float>& a, int col_high, int row_high) {
    return v * ((col_high ? a.sx[1] : a.sx[0]) * (row_high ? a.sy[1] : a.sy[0]));
  }
  __device__ static float inverse_store(float v, const LevelArgs<float>&, int, int) { return v; }
};

// Binds lift_columns / lift_rows to a tile so the filters' step lists can
// drive either axis.
template <int LD, int NR, int C0, int NC, typename T>
struct ColumnSteps {
  T* s;
  template <int P, typename Op>
  __device__ void step(Op op) const { lift_columns<LD, NR, C0, NC, P>(s, op); }
};
template <int LD, int NW, int R0, int NRows, typename T>
struct RowSteps {
  T* s;
  template <int P, typename Op>
  __device__ void step(Op op) const { lift_rows<LD, NW, R0, NRows, P>(s, op); }
};

// Forward level (2D_SD, F.4.2): columns, then rows, then deinterleave into
// the packed layout. Block (bx, by) owns relative columns
// [bx*TW - p0x, (bx+1)*TW - p0x), which start on an even absolute coordinate.
template <typename T, int TW, int TH>
__global__ void __launch_bounds__(kLevelThreads)
forward_level_kernel(const LevelArgs<T> a) {
  constexpr int H = Filter<T>::kHalo;
  constexpr int NW = TW + 2 * H, NH = TH + 2 * H, LD = NW + 1;
  static_assert(TW % 2 == 0 && TH % 2 == 0, "tiles start on even coordinates");
  __shared__ T s[NH * LD];

  const int cx0 = static_cast<int>(blockIdx.x) * TW - a.x.p0 - H;  // relative column of tile col 0
  const int cy0 = static_cast<int>(blockIdx.y) * TH - a.y.p0 - H;
  for (int i = threadIdx.x; i < NH * NW; i += blockDim.x) {
    const int r = i / NW, c = i - r * NW;
    const int gx = mirror(cx0 + c, a.x.n), gy = mirror(cy0 + r, a.y.n);
    s[r * LD + c] = Filter<T>::forward_load(a.in.data[gy * a.in.pitch + gx], a, c & 1, r & 1);
  }
  __syncthreads();

  if (a.y.n > 1) Filter<T>::forward(ColumnSteps<LD, NH, 0, NW, T>{s});
  if (a.x.n > 1) Filter<T>::forward(RowSteps<LD, NW, H, TH, T>{s});

  // Each thread writes low-pass then high-pass halves of a tile row so that
  // consecutive threads write consecutive packed columns.
  constexpr int HALF = TW / 2;
  for (int i = threadIdx.x; i < TH * TW; i += blockDim.x) {
    const int r = i / TW, k = i - r * TW;
    const int gy = cy0 + H + r;
    const int col_high = k >= HALF;
    const int lc = col_high ? 2 * (k - HALF) + 1 : 2 * k;  // tile column, minus the halo
    const int gx = cx0 + H + lc;
    if (gx < 0 || gx >= a.x.n || gy < 0 || gy >= a.y.n) continue;
    const int row_high = r & 1;
    const T v = Filter<T>::forward_store(s[(H + r) * LD + H + lc], a, col_high, row_high);
    const int px = packed_index(gx, a.x), py = packed_index(gy, a.y);
    if (!col_high && !row_high) {
      a.ll.data[py * a.ll.pitch + px] = v;
    } else {
      a.out.data[py * a.out.pitch + px] = v;
    }
  }
}

// Inverse level (2D_SR, F.3.2): interleave from the packed bands while
// loading, rows, then columns, and write the region in natural order.
template <typename T, int TW, int TH>
__global__ void __launch_bounds__(kLevelThreads)
inverse_level_kernel(const LevelArgs<T> a) {
  constexpr int H = Filter<T>::kHalo;
  constexpr int NW = TW + 2 * H, NH = TH + 2 * H, LD = NW + 1;
  static_assert(TW % 2 == 0 && TH % 2 == 0, "tiles start on even coordinates");
  __shared__ T s[NH * LD];

  const int cx0 = static_cast<int>(blockIdx.x) * TW - a.x.p0 - H;
  const int cy0 = static_cast<int>(blockIdx.y) * TH - a.y.p0 - H;
  for (int i = threadIdx.x; i < NH * NW; i += blockDim.x) {
    const int r = i / NW, c = i - r * NW;
    const int gx = mirror(cx0 + c, a.x.n), gy = mirror(cy0 + r, a.y.n);
    const int px = packed_index(gx, a.x), py = packed_index(gy, a.y);
    const int col_high = c & 1, row_high = r & 1;
    const T v = (!col_high && !row_high) ? a.ll.data[py * a.ll.pitch + px]
                                         : a.in.data[py * a.in.pitch + px];
    s[r * LD + c] = Filter<T>::inverse_load(v, a, col_high, row_high);
  }
  __syncthreads();

  if (a.x.n > 1) Filter<T>::inverse(RowSteps<LD, NW, 0, NH, T>{s});
  if (a.y.n > 1) Filter<T>::inverse(ColumnSteps<LD, NH, H, TW, T>{s});

  for (int i = threadIdx.x; i < TH * TW; i += blockDim.x) {
    const int r = i / TW, k = i - r * TW;
    const int gx = cx0 + H + k, gy = cy0 + H + r;
    if (gx < 0 || gx >= a.x.n || gy < 0 || gy >= a.y.n) continue;
    a.out.data[gy * a.out.pitch + gx] =
        Filter<T>::inverse_store(s[(H + r) * LD + H + k], a, k & 1, r & 1);
  }
}

}  // namespace mallat::dwt::cuda::detail
