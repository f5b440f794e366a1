// The Tier-1 encoding kernel: one code-block per thread, running the shared
// encoder (entropy/t1_shared_encoder.h), the same source the CPU tests hold
// to encode_code_block. Device code only; launched by t1_encode_launch.cu.
#pragma once

#include "entropy/cuda/t1_encode_launch.h"
#include "entropy/t1_shared_encoder.h"

namespace mallat::entropy::cuda {

__global__ void __launch_bounds__(kT1EncodeThreads) t1_encode_kernel(T1EncodeArgs args) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= args.count) return;
  const uint32_t j = args.order[t];
  const T1DeviceJob job = args.jobs[j];
  // In local memory, which the hardware interleaves thread by thread: the
  // threads of a warp touching the same word of their states coalesce.
  T1FixedState state;
  SharedT1Block block;
  block.coefficients = args.coefficients + job.coefficient_offset;
  block.width = job.width;
  block.height = job.height;
  block.stride = job.width;
  block.orientation = static_cast<BandOrientation>(job.orientation);
  block.num_bitplanes = job.num_bitplanes;
  block.style = CodeBlockStyle::from_byte(job.style);
  block.fraction_bits = job.fraction_bits;
  const SharedT1Output out{args.slots + static_cast<size_t>(j) * args.slot_capacity, args.slot_capacity,
                           args.passes + static_cast<size_t>(j) * kMaxCodingPasses};
  args.results[j] = encode_code_block_shared(block, state, out);
}

}  // namespace mallat::entropy::cuda
