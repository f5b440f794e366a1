// The HT decoding kernel: one code-block per thread, running the shared HT
// block coder (entropy/ht/shared_code_block.h), the same source the CPU tests
// hold to decode_ht_code_block. Device code only; launched by
// entropy/cuda/t1_decode_launch.cu for an HT batch, on the same jobs and
// buffers as EBCOT's kernel (entropy/cuda/ebcot/decode_kernel.cuh). Every read
// of codeword bytes stays inside the job's bytes (shared_code_block.h cuts
// the segments to them; the readers supply the fill past a segment's end).
#pragma once

#include "entropy/cuda/t1_decode_launch.h"
#include "entropy/cuda/thread_block.cuh"
#include "entropy/ht/shared_code_block.h"

namespace mallat::entropy::cuda {

__global__ void __launch_bounds__(32) ht_decode_kernel(T1DecodeArgs args) {
  const uint32_t t = thread_block(args.blocks_per_warp, args.count);
  if (t == kNoBlock) return;
  const uint32_t j = args.order[t];
  const T1DecodeJob& job = args.jobs[j];
  const SharedT1DecodeBlock block = shared_block_of(job, args.bytes, args.segment_lengths);
  args.results[j] = decode_ht_block_shared(block, args.ht_states[t], args.samples + job.sample_offset, job.width,
                                           args.vlc);
}

}  // namespace mallat::entropy::cuda
