// The HT encoding kernel: one code-block per thread, running the shared HT
// block coder (entropy/ht/shared_code_block.h), the same source the CPU tests
// hold to encode_ht_code_block. Device code only; launched by
// entropy/cuda/t1_encode_launch.cu for an HT batch, on the same jobs, slots and
// results as EBCOT's kernel (entropy/cuda/ebcot/encode_kernel.cuh).
#pragma once

#include "entropy/cuda/t1_encode_launch.h"
#include "entropy/cuda/thread_block.cuh"
#include "entropy/ht/shared_code_block.h"

namespace mallat::entropy::cuda {

// One code-block per thread, the first args.blocks_per_warp lanes of each
// warp working (as EBCOT's kernel, which says why), each thread's state its
// own HtBlockState in args.ht_states.
__global__ void __launch_bounds__(kT1EncodeThreads) ht_encode_kernel(T1EncodeArgs args) {
  const uint32_t t = thread_block(args.blocks_per_warp, args.count);
  if (t == kNoBlock) return;
  const uint32_t j = args.order[t];
  const T1DeviceJob& job = args.jobs[j];
  const HtBlockSettings settings{job.ht_cleanup_plane, (job.ht_flags & kHtRefinement) != 0,
                                 (job.ht_flags & kHtDistortions) != 0};
  const SharedT1Output out{args.slots + static_cast<size_t>(j) * args.slot_capacity, args.slot_capacity,
                           args.passes + static_cast<size_t>(j) * kMaxCodingPasses};
  args.results[j] =
      encode_ht_block_shared(shared_block_of(job, args.coefficients), settings, args.ht_states[t], out, args.vlc);
}

}  // namespace mallat::entropy::cuda
