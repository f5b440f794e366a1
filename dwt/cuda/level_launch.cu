// Launchers of the fused level kernels: grid sizes from the region, one
// error check per launch (STYLE.md).
#include "dwt/cuda/check.h"
#include "dwt/cuda/level_kernels.cuh"
#include "dwt/cuda/level_launch.h"

namespace mallat::dwt::cuda {
namespace {

// Rows each warp outputs: 16 (24 or 20 loaded with the halo), as 32 needs
// more registers and lowers occupancy; levels under 4 Msamples take 8 so
// that more warps share the latency.
constexpr int kRows = 16;
constexpr int kRowsSmall = 8;
constexpr int64_t kSmallLevelSamples = int64_t{1} << 22;

// The grid's y dimension is limited to 65535 blocks.
Status check_grid(const dim3& g) {
  if (g.y > 65535) return unsupported("CUDA DWT: region too tall for one launch");
  return Status::Ok();
}

// Warps cover relative columns [-p0, n) in strips of 64 - 2H outputs,
// kWarpsPerBlock strips per block; blocks cover rows in strips of R.
template <typename T, int R>
dim3 grid_of(const LevelArgs<T>& a) {
  using S = detail::Strip<T, R>;
  const int strips = (a.x.n + a.x.p0 + S::kOutCols - 1) / S::kOutCols;
  return dim3(static_cast<unsigned>((strips + detail::kWarpsPerBlock - 1) / detail::kWarpsPerBlock),
              static_cast<unsigned>((a.y.n + a.y.p0 + R - 1) / R));
}

const dim3 kBlock(32, detail::kWarpsPerBlock);

template <typename T, int R>
Status launch_fwd(const LevelArgs<T>& a, cudaStream_t stream) {
  const dim3 grid = grid_of<T, R>(a);
  MALLAT_RETURN_IF_ERROR(check_grid(grid));
  detail::forward_level_kernel<T, R><<<grid, kBlock, 0, stream>>>(a);
  return check_launch("forward_level_kernel");
}
template <typename T, int R>
Status launch_inv(const LevelArgs<T>& a, cudaStream_t stream) {
  const dim3 grid = grid_of<T, R>(a);
  MALLAT_RETURN_IF_ERROR(check_grid(grid));
  detail::inverse_level_kernel<T, R><<<grid, kBlock, 0, stream>>>(a);
  return check_launch("inverse_level_kernel");
}

template <typename T>
Status launch_forward(const LevelArgs<T>& a, cudaStream_t stream) {
  if (a.x.n == 0 || a.y.n == 0) return Status::Ok();
  if (int64_t{a.x.n} * a.y.n < kSmallLevelSamples) return launch_fwd<T, kRowsSmall>(a, stream);
  return launch_fwd<T, kRows>(a, stream);
}

template <typename T>
Status launch_inverse(const LevelArgs<T>& a, cudaStream_t stream) {
  if (a.x.n == 0 || a.y.n == 0) return Status::Ok();
  if (int64_t{a.x.n} * a.y.n < kSmallLevelSamples) return launch_inv<T, kRowsSmall>(a, stream);
  return launch_inv<T, kRows>(a, stream);
}

}  // namespace

Status forward_level_async(const LevelArgs<int32_t>& a, cudaStream_t s) { return launch_forward(a, s); }
Status forward_level_async(const LevelArgs<float>& a, cudaStream_t s) { return launch_forward(a, s); }
Status inverse_level_async(const LevelArgs<int32_t>& a, cudaStream_t s) { return launch_inverse(a, s); }
Status inverse_level_async(const LevelArgs<float>& a, cudaStream_t s) { return launch_inverse(a, s); }

}  // namespace mallat::dwt::cuda
