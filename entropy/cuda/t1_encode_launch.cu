// Launches a batch's encoding kernel, EBCOT's or HT's (launcher apart from
// the kernels).
#include "entropy/cuda/ebcot/encode_kernel.cuh"
#include "entropy/cuda/ebcot/form_kernel.cuh"
#include "entropy/cuda/ebcot/plane_order_kernel.cuh"
#include "entropy/cuda/ht/encode_kernel.cuh"
#include "entropy/cuda/t1_encode_launch.h"
#include "entropy/cuda/t1_pack_kernel.cuh"

#include <string>

namespace mallat::entropy::cuda {

namespace {

// The split EBCOT encoder's two launches: a warp a block forming, then a
// thread a block coding (`coding_blocks` CUDA blocks of one warp, each
// coding args.blocks_per_warp code-blocks).
Status launch_t1_formed(const T1EncodeArgs& args, unsigned coding_blocks, cudaStream_t stream) {
  if (args.forming_lanes != 16 && args.forming_lanes != 32) {
    return invalid_argument("Tier-1 forming: " + std::to_string(args.forming_lanes) + " lanes a block (16 or 32)");
  }
  const uint32_t groups = kFormLanes / args.forming_lanes;
  const size_t shared = size_t{args.forming_words} * 4 * groups;
  // Above 48 KB a kernel must ask for its dynamic shared memory.
  if (shared > 48 * 1024) {
    const cudaError_t err =
        cudaFuncSetAttribute(t1_form_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared));
    if (err != cudaSuccess) return device_error(std::string("t1_form_kernel shared memory: ") + cudaGetErrorString(err));
  }
  t1_form_kernel<<<(args.count + groups - 1) / groups, kFormLanes, shared, stream>>>(args);
  t1_code_formed_kernel<<<coding_blocks, kT1EncodeThreads, 0, stream>>>(args);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return device_error(std::string("t1_form_kernel launch: ") + cudaGetErrorString(err));
  return Status::Ok();
}

}  // namespace

Status launch_t1_encode(const T1EncodeArgs& args, cudaStream_t stream) {
  if (args.count == 0) return Status::Ok();
  if (args.blocks_per_warp < 1 || args.blocks_per_warp > 32) {
    return invalid_argument("Tier-1 kernel: " + std::to_string(args.blocks_per_warp) +
                            " code-blocks per warp (1..32)");
  }
  const unsigned warps = (args.count + args.blocks_per_warp - 1) / args.blocks_per_warp;
  const unsigned blocks = (warps * 32 + kT1EncodeThreads - 1) / kT1EncodeThreads;
  if (!args.ht && args.formed_streams != nullptr) return launch_t1_formed(args, blocks, stream);
  if (args.ht) {
    if (args.ht_states == nullptr) return invalid_argument("HT kernel: no working states");
    ht_encode_kernel<<<blocks, kT1EncodeThreads, 0, stream>>>(args);
  } else if (args.states != nullptr) {
    t1_encode_kernel<true><<<blocks, kT1EncodeThreads, 0, stream>>>(args);
  } else {
    t1_encode_kernel<false><<<blocks, kT1EncodeThreads, 0, stream>>>(args);
  }
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    return device_error(std::string("t1_encode_kernel launch: ") + cudaGetErrorString(err));
  }
  return Status::Ok();
}

Status launch_t1_plane_order(const T1EncodeArgs& args, const uint32_t* host_order, uint8_t* bins,
                             uint32_t* sorted, cudaStream_t stream) {
  if (args.count == 0) return Status::Ok();
  const uint32_t per_block = 256 / 32;  // a warp a job
  t1_block_planes_kernel<<<(args.count + per_block - 1) / per_block, 256, 0, stream>>>(
      args.jobs, host_order, args.count, args.coefficients, bins);
  t1_order_by_planes_kernel<<<1, kPlaneOrderThreads, 0, stream>>>(host_order, bins, args.count, sorted);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return device_error(std::string("t1_order_by_planes launch: ") + cudaGetErrorString(err));
  return Status::Ok();
}

Status launch_t1_pack(const T1EncodeArgs& args, uint64_t* byte_offset, uint64_t* pass_offset, uint8_t* bytes,
                      CodingPass* passes, cudaStream_t stream) {
  if (args.count == 0) return Status::Ok();
  t1_pack_offsets_kernel<<<1, kT1PackScanThreads, 0, stream>>>(args.results, args.count, byte_offset, pass_offset);
  t1_pack_kernel<<<args.count, 128, 0, stream>>>(args, byte_offset, pass_offset, bytes, passes);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return device_error(std::string("t1_pack_kernel launch: ") + cudaGetErrorString(err));
  return Status::Ok();
}

Status load_t1_encode_kernel() {
  cudaFuncAttributes attributes{};
  for (const void* kernel : {reinterpret_cast<const void*>(&t1_encode_kernel<true>),
                             reinterpret_cast<const void*>(&t1_encode_kernel<false>),
                             reinterpret_cast<const void*>(&ht_encode_kernel),
                             reinterpret_cast<const void*>(&t1_form_kernel),
                             reinterpret_cast<const void*>(&t1_code_formed_kernel),
                             reinterpret_cast<const void*>(&t1_pack_offsets_kernel),
                             reinterpret_cast<const void*>(&t1_block_planes_kernel),
                             reinterpret_cast<const void*>(&t1_order_by_planes_kernel),
                             reinterpret_cast<const void*>(&t1_pack_kernel)}) {
    const cudaError_t err = cudaFuncGetAttributes(&attributes, kernel);
    if (err != cudaSuccess) return device_error(std::string("loading t1_encode_kernel: ") + cudaGetErrorString(err));
  }
  return Status::Ok();
}

}  // namespace mallat::entropy::cuda
