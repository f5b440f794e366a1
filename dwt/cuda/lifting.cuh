// Device side of the lifting steps (Annex F) for the register-based level
// kernels: each thread holds two adjacent columns (an even and an odd
// absolute coordinate) of a strip of rows in registers. Vertical steps run
// on those arrays with compile-time indices; horizontal steps take the
// neighbouring column from the adjacent lane with a warp shuffle. No shared
// memory, no barriers.
#pragma once

#include <cstdint>

namespace mallat::dwt::cuda::detail {

// Table F.4 lifting parameters of the irreversible 9/7 filter.
constexpr float kAlpha = -1.586134342059924f;
constexpr float kBeta = -0.052980118572961f;
constexpr float kGamma = 0.882911075530934f;
constexpr float kDelta = 0.443506852043971f;

// F.4.8.1 (1D_FILTD_5-3R), forward: predict the odd samples, update the even.
// >> on int32 is an arithmetic shift, i.e. floor division by 2 and 4.
struct Fwd53Predict {
  __device__ int32_t operator()(int32_t x, int32_t l, int32_t r) const { return x - ((l + r) >> 1); }
};
struct Fwd53Update {
  __device__ int32_t operator()(int32_t x, int32_t l, int32_t r) const { return x + ((l + r + 2) >> 2); }
};
// F.3.8.1 (1D_FILTR_5-3R), inverse: the same steps undone in reverse order.
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
// updates the samples of parity P (0 even / low, 1 odd / high).
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

// Vertical steps on a thread's two columns, rows 0..NR-1 of the strip. Row
// j has the parity of j (strips start on an even coordinate); rows within
// one step of the strip's ends come out wrong and are never used: the halo
// is as deep as the filter has steps.
template <int NR, typename T>
struct VerticalSteps {
  T (&e)[NR];
  T (&o)[NR];
  template <int P, typename Op>
  __device__ __forceinline__ void step(Op op) const {
#pragma unroll
    for (int j = P == 0 ? 2 : 1; j <= NR - 2; j += 2) {
      e[j] = op(e[j], e[j - 1], e[j + 1]);
      o[j] = op(o[j], o[j - 1], o[j + 1]);
    }
  }
};

// Horizontal steps on rows [J0, J1) of the strip: a lane's odd column needs
// the even column of the next lane, its even column the odd one of the
// previous lane. The warp's outer lanes come out wrong (halo) and are not
// written.
template <int NR, int J0, int J1, typename T>
struct HorizontalSteps {
  T (&e)[NR];
  T (&o)[NR];
  template <int P, typename Op>
  __device__ __forceinline__ void step(Op op) const {
#pragma unroll
    for (int j = J0; j < J1; ++j) {
      if (P == 1) {
        o[j] = op(o[j], e[j], __shfl_down_sync(0xffffffffu, e[j], 1));
      } else {
        e[j] = op(e[j], __shfl_up_sync(0xffffffffu, o[j], 1), o[j]);
      }
    }
  }
};

}  // namespace mallat::dwt::cuda::detail
