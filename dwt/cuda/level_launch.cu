// Launchers of the fused level kernels: grid sizes from the region, one
// error check per launch (STYLE.md).
#include "dwt/cuda/check.h"
#include "dwt/cuda/level_kernels.cuh"
#include "dwt/cuda/level_launch.h"

namespace mallat::dwt::cuda {
namespace {

// Tile shapes: 64 x 32 samples per block keeps the 9/7 tile (72 x 40 with
// its halo, 11.7 KB) small enough for 8 blocks of 256 threads per SM.
constexpr int kTileW = 64;
constexpr int kTileH = 32;

// Blocks cover relative [-p0, n) in steps of the tile, so the first tile
// starts on an even absolute coordinate.
dim3 level_grid(const LevelAxis& x, const LevelAxis& y) {
  return dim3(static_cast<unsigned>((x.n + x.p0 + kTileW - 1) / kTileW),
              static_cast<unsigned>((y.n + y.p0 + kTileH - 1) / kTileH));
}

template <typename T>
Status launch_forward(const LevelArgs<T>& a, cudaStream_t stream) {
  if (a.x.n == 0 || a.y.n == 0) return Status::Ok();
  detail::forward_level_kernel<T, kTileW, kTileH>
      <<<level_grid(a.x, a.y), detail::kLevelThreads, 0, stream>>>(a);
  return check_launch("forward_level_kernel");
}

template <typename T>
Status launch_inverse(const LevelArgs<T>& a, cudaStream_t stream) {
  if (a.x.n == 0 || a.y.n == 0) return Status::Ok();
  detail::inverse_level_kernel<T, kTileW, kTileH>
      <<<level_grid(a.x, a.y), detail::kLevelThreads, 0, stream>>>(a);
  return check_launch("inverse_level_kernel");
}

}  // namespace

Status forward_level_async(const LevelArgs<int32_t>& a, cudaStream_t s) { return launch_forward(a, s); }
Status forward_level_async(const LevelArgs<float>& a, cudaStream_t s) { return launch_forward(a, s); }
Status inverse_level_async(const LevelArgs<int32_t>& a, cudaStream_t s) { return launch_inverse(a, s); }
Status inverse_level_async(const LevelArgs<float>& a, cudaStream_t s) { return launch_inverse(a, s); }

}  // namespace mallat::dwt::cuda
