// The Tier-1 decoding kernel: one code-block per thread, running the shared
// decoder (entropy/ebcot/shared_decoder.h), the same source the CPU tests hold
// to decode_code_block. Device code only; launched by entropy/cuda/t1_decode_launch.cu.
#pragma once

#include "entropy/cuda/t1_decode_launch.h"
#include "entropy/cuda/thread_block.cuh"
#include "entropy/ebcot/shared_decoder.h"

namespace mallat::entropy::cuda {

// Decodes job j into `state`; whether its samples are left there for the
// warp to write (decode_code_block_to_state).
__device__ inline bool t1_decode_job(const T1DecodeArgs& args, uint32_t j, T1FixedState& state) {
  const T1DecodeJob job = args.jobs[j];
  const SharedT1DecodeBlock block = shared_block_of(job, args.bytes, args.segment_lengths);
  bool in_state = false;
  args.results[j] = decode_code_block_to_state(block, state, args.samples + job.sample_offset, job.width,
                                               args.marked, &in_state);
  return in_state;
}

// One code-block per thread, the first args.blocks_per_warp lanes of each
// warp working (entropy/cuda/ebcot/encode_kernel.cuh says why), each
// thread's state its own contiguous T1FixedState in device memory. Then
// the whole warp writes its blocks' samples out of their states, one block
// at a time with every lane on a column of each row: the lanes finish their
// decodes at different times, and one lane writing its 4,096 samples alone
// would hold the warp's issue slots while the others decode.
__global__ void __launch_bounds__(32) t1_decode_kernel(T1DecodeArgs args) {
  const uint32_t lane = threadIdx.x % 32;
  const uint32_t t = thread_block(args.blocks_per_warp, args.count);
  const bool in_state = t != kNoBlock && t1_decode_job(args, args.order[t], args.states[t]);
  uint32_t pending = __ballot_sync(0xFFFFFFFFu, in_state);
  __syncwarp();  // the lanes' states, written, before the others read them
  // Lane b's block is the launch's (warp * blocks_per_warp + b)-th.
  const uint32_t warp_first = (blockIdx.x * blockDim.x + threadIdx.x) / 32 * args.blocks_per_warp;
  while (pending != 0) {
    const uint32_t b = static_cast<uint32_t>(__ffs(static_cast<int>(pending)) - 1);
    pending &= pending - 1;
    const uint32_t tb = warp_first + b;
    const T1DecodeJob job = args.jobs[args.order[tb]];
    detail::write_decoded_samples(args.states[tb], args.samples + job.sample_offset, job.width,
                                  static_cast<int>(lane), 32);
  }
}

}  // namespace mallat::entropy::cuda
