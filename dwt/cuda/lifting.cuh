// Device side of the lifting steps (Annex F), applied to a tile held in
// shared memory. A tile is a row-major array of NH x NW samples (row stride
// LD) whose local position k has the parity of k (the tile starts on an even
// absolute coordinate), so "even" below always means low-pass.
#pragma once

#include <cstdint>

namespace mallat::dwt::cuda::detail {

// Table F.4 lifting parameters of the irreversible 9/7 filter.
constexpr float kAlpha = -1.586134342059924f;
constexpr float kBeta = -0.052980118572961f;
constexpr float kGamma = 0.882911075530934f;
constexpr float kDelta = 0.443506852043971f;
constexpr double kK = 1.230174104914001;

// One lifting step along the columns: for every column c in [C0, C0 + NC)
// and every row k of parity PARITY with 1 <= k <= NR - 2,
//   s[k][c] = op(s[k][c], s[k-1][c], s[k+1][c]).
// Consecutive threads take consecutive columns: no bank conflicts. Samples
// within one step of the tile's edge come out wrong and are never used: the
// halo is as wide as the number of steps (2 for 5/3, 4 for 9/7).
template <int LD, int NR, int C0, int NC, int PARITY, typename T, typename Op>
__device__ __forceinline__ void lift_columns(T* s, Op op) {
  constexpr int kFirst = PARITY == 0 ? 2 : 1;
  constexpr int kCount = (NR - 2 - kFirst) / 2 + 1;
  for (int i = threadIdx.x; i < kCount * NC; i += blockDim.x) {
    const int m = i / NC;
    const int c = C0 + (i - m * NC);
    T* p = s + (kFirst + 2 * m) * LD + c;
    *p = op(*p, p[-LD], p[LD]);
  }
  __syncthreads();
}

// The same along the rows: rows [R0, R0 + NRows), positions k of parity
// PARITY with 1 <= k <= NW - 2. Threads stride by 2 samples: a 2-way bank
// conflict, the price of working in place.
template <int LD, int NW, int R0, int NRows, int PARITY, typename T, typename Op>
__device__ __forceinline__ void lift_rows(T* s, Op op) {
  constexpr int kFirst = PARITY == 0 ? 2 : 1;
  constexpr int kCount = (NW - 2 - kFirst) / 2 + 1;
  for (int i = threadIdx.x; i < kCount * NRows; i += blockDim.x) {
    const int r = i / kCount;
    const int k = kFirst + 2 * (i - r * kCount);
    T* p = s + (R0 + r) * LD + k;
    *p = op(*p, p[-1], p[1]);
  }
  __syncthreads();
}

// F.4.8.1 (1D_FILTD_5-3R), forward: predict the odd samples, update the even.
struct Fwd53Predict {
  __device__ int32_t operator()(int32_t x, int32_t l, int32_t r) const { return x - ((l + r) >> 1); }
};
struct Fwd53Update {
  __device__ int32_t operator()(int32_t x, int32_t l, int32_t r) const { return x + ((l + r + 2) >> 2); }
};
// F.3.8.1 (1D_FILTR_5-3R), inverse: the same steps undone in reverse order.
// >> on int32 is an arithmetic shift, i.e. floor division by 2 and 4.
struct Inv53Update {
  __device__ int32_t operator()(int32_t x, int32_t l, int32_t r) const { return x - ((l + r + 2) >> 2); }
};
struct Inv53Predict {
  __device__ int32_t operator()(int32_t x, int32_t l, int32_t r) const { return x + ((l + r) >> 1); }
};

// F.4.8.2 / F.3.8.2 (9/7): x + c * (l + r); the inverse passes -c.
struct Lift97 {
  float c;
  __device__ float operator()(float x, float l, float r) const { return fmaf(c, l + r, x); }
};

// The steps of each filter along one axis, in order; `apply.step<P>(op)`
// runs lift_columns or lift_rows over the positions of parity P.
template <typename Apply>
__device__ __forceinline__ void forward_53(Apply apply) {
  apply.template step<1>(Fwd53Predict{});
  apply.template step<0>(Fwd53Update{});
}
template <typename Apply>
__device__ __forceinline__ void inverse_53(Apply apply) {
  apply.template step<0>(Inv53Update{});
  apply.template step<1>(Inv53Predict{});
}
template <typename Apply>
__device__ __forceinline__ void forward_97(Apply apply) {
  apply.template step<1>(Lift97{kAlpha});
  apply.template step<0>(Lift97{kBeta});
  apply.template step<1>(Lift97{kGamma});
  apply.template step<0>(Lift97{kDelta});
}
template <typename Apply>
__device__ __forceinline__ void inverse_97(Apply apply) {
  apply.template step<0>(Lift97{-kDelta});
  apply.template step<1>(Lift97{-kGamma});
  apply.template step<0>(Lift97{-kBeta});
  apply.template step<1>(Lift97{-kAlpha});
}

}  // namespace mallat::dwt::cuda::detail
