// The Tier-1 decoding kernel: one code-block per thread, running the shared
// decoder (entropy/ebcot/shared_decoder.h), the same source the CPU tests hold
// to decode_code_block. Device code only; launched by entropy/cuda/t1_decode_launch.cu.
#pragma once

#include "entropy/cuda/t1_decode_launch.h"
#include "entropy/cuda/thread_block.cuh"
#include "entropy/ebcot/shared_decoder.h"

namespace mallat::entropy::cuda {

// Decodes job j with `state` as its working state.
__device__ inline void t1_decode_job(const T1DecodeArgs& args, uint32_t j, T1FixedState& state) {
  const T1DecodeJob job = args.jobs[j];
  const SharedT1DecodeBlock block = shared_block_of(job, args.bytes, args.segment_lengths);
  args.results[j] =
      decode_code_block_shared(block, state, args.samples + job.sample_offset, job.width, args.marked);
}

// One code-block per thread, the first args.blocks_per_warp lanes of each
// warp working (entropy/cuda/ebcot/encode_kernel.cuh says why), each thread's state its own
// contiguous T1FixedState in device memory.
__global__ void __launch_bounds__(32) t1_decode_kernel(T1DecodeArgs args) {
  const uint32_t t = thread_block(args.blocks_per_warp, args.count);
  if (t == kNoBlock) return;
  t1_decode_job(args, args.order[t], args.states[t]);
}

}  // namespace mallat::entropy::cuda
