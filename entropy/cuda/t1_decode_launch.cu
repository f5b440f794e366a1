// Launches t1_decode_kernel over a batch (launcher apart from the kernel).
#include "entropy/cuda/ebcot/decode_kernel.cuh"
#include "entropy/cuda/ht/decode_kernel.cuh"
#include "entropy/cuda/t1_decode_launch.h"

#include <string>

namespace mallat::entropy::cuda {

Status launch_t1_decode(const T1DecodeArgs& args, cudaStream_t stream) {
  if (args.count == 0) return Status::Ok();
  if (args.blocks_per_warp < 1 || args.blocks_per_warp > 32) {
    return invalid_argument("Tier-1 decoding kernel: " + std::to_string(args.blocks_per_warp) +
                            " code-blocks per warp (1..32)");
  }
  // One warp per CUDA block, so a batch of a few thousand code-blocks still
  // spreads over every SM.
  const unsigned warps = (args.count + args.blocks_per_warp - 1) / args.blocks_per_warp;
  if (args.ht) {
    if (args.ht_states == nullptr) return invalid_argument("HT decoding kernel: no working states");
    ht_decode_kernel<<<warps, 32, 0, stream>>>(args);
  } else {
    t1_decode_kernel<<<warps, 32, 0, stream>>>(args);
  }
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    return device_error(std::string("t1_decode_kernel launch: ") + cudaGetErrorString(err));
  }
  return Status::Ok();
}

Status load_t1_decode_kernel() {
  cudaFuncAttributes attributes{};
  for (const void* kernel :
       {reinterpret_cast<const void*>(&t1_decode_kernel), reinterpret_cast<const void*>(&ht_decode_kernel)}) {
    const cudaError_t err = cudaFuncGetAttributes(&attributes, kernel);
    if (err != cudaSuccess) return device_error(std::string("loading t1_decode_kernel: ") + cudaGetErrorString(err));
  }
  return Status::Ok();
}

}  // namespace mallat::entropy::cuda
