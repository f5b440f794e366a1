// Level sequencing of one plane: which region each level covers (B-14) and
// which buffer it reads and writes.
#include "dwt/cuda/plane_transform.h"

#include "dwt/cuda/check.h"
#include "dwt/cuda/level_launch.h"
#include "dwt/geometry.h"

namespace mallat::dwt::cuda {
namespace {

constexpr double kK = 1.230174104914001;  // Table F.4

// The region [ceil(t0 / 2^(l-1)), ceil(t1 / 2^(l-1))) that level l
// transforms (B-14), along one axis.
LevelAxis level_axis(int64_t t0, int64_t extent, int level) {
  const int64_t u0 = ceil_div_pow2(t0, level - 1);
  const int64_t u1 = ceil_div_pow2(t0 + extent, level - 1);
  LevelAxis a;
  a.n = static_cast<int>(u1 - u0);
  a.p0 = static_cast<int>(u0 & 1);
  a.nlow = static_cast<int>(ceil_div_pow2(u1, 1) - ceil_div_pow2(u0, 1));
  return a;
}

// F.4.8.2 step 5-6 (1/K low, K high), F.3.8.2 step 1-2 (K low, 1/K high), or
// for a lone sample F.4.7 / F.3.7 (1 low, 2 or 1/2 high).
void axis_factors(const LevelAxis& a, Direction d, float f[2]) {
  const bool forward = d == Direction::kForward;
  if (a.n > 1) {
    f[0] = static_cast<float>(forward ? 1.0 / kK : kK);
    f[1] = static_cast<float>(forward ? kK : 1.0 / kK);
  } else {
    f[0] = 1.0f;
    f[1] = forward ? 2.0f : 0.5f;
  }
}

template <typename T>
DevicePlane<const T> as_const(const DevicePlane<T>& p) {
  return DevicePlane<const T>{p.data, p.pitch};
}

template <typename T>
Status copy_plane_async(const PlaneShape& s, const PlaneBuffers<T>& b, cudaStream_t stream) {
  return check_cuda(cudaMemcpy2DAsync(b.out.data, b.out.pitch * sizeof(T), b.in.data,
                                      b.in.pitch * sizeof(T), s.width * sizeof(T), s.height,
                                      cudaMemcpyDeviceToDevice, stream),
                    "cudaMemcpy2DAsync (0 levels)");
}

template <typename T>
Status transform_async(const PlaneShape& s, const PlaneBuffers<T>& b, cudaStream_t stream) {
  if (s.width == 0 || s.height == 0) return Status::Ok();
  if (s.levels == 0) return copy_plane_async(s, b, stream);
  const int L = s.levels;
  auto args_for = [&](int level) {
    LevelArgs<T> a;
    a.x = level_axis(s.x0, s.width, level);
    a.y = level_axis(s.y0, s.height, level);
    axis_factors(a.x, s.direction, a.sx);
    axis_factors(a.y, s.direction, a.sy);
    return a;
  };
  if (s.direction == Direction::kForward) {
    // Level l reads the previous LL (the input for l = 1) and writes its own
    // LL to scratch, or to its packed place in `out` at the last level.
    for (int l = 1; l <= L; ++l) {
      LevelArgs<T> a = args_for(l);
      if (a.x.n == 0 || a.y.n == 0) break;  // so are all coarser levels
      a.in = l == 1 ? as_const(b.in) : as_const(b.scratch[(l - 2) % 2]);
      a.out = b.out;
      a.ll = l == L ? b.out : b.scratch[(l - 1) % 2];
      MALLAT_RETURN_IF_ERROR(forward_level_async(a, stream));
    }
  } else {
    // Level l reads LL from the input (l = NL) or from what level l + 1
    // reconstructed, HL, LH, HH from the input, and writes its region to
    // scratch, or to `out` at l = 1.
    for (int l = L; l >= 1; --l) {
      LevelArgs<T> a = args_for(l);
      if (a.x.n == 0 || a.y.n == 0) continue;  // an empty coarse level
      a.in = as_const(b.in);
      a.ll = l == L ? b.in : b.scratch[(l + 1) % 2];
      a.out = l == 1 ? b.out : b.scratch[l % 2];
      MALLAT_RETURN_IF_ERROR(inverse_level_async(a, stream));
    }
  }
  return Status::Ok();
}

}  // namespace

Status transform_plane_async(const PlaneShape& s, const PlaneBuffers<int32_t>& b, cudaStream_t st) {
  return transform_async(s, b, st);
}
Status transform_plane_async(const PlaneShape& s, const PlaneBuffers<float>& b, cudaStream_t st) {
  return transform_async(s, b, st);
}

}  // namespace mallat::dwt::cuda
