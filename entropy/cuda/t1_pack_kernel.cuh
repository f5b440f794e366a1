// Packing a coded batch's outputs (launch_t1_pack, entropy/cuda/t1_encode_launch.h):
// each job's slot holds room for its worst case, but the host needs only
// what was coded, about a fifth of the slots for a photo's tile. The rule
// of what a block keeps is packed_bytes / packed_passes
// (entropy/ebcot/shared_encoder.h), which the host's lay_out_t1_packed follows too.
#pragma once

#include <cstdint>

#include "entropy/cuda/t1_encode_launch.h"
#include "entropy/ebcot/shared_encoder.h"

namespace mallat::entropy::cuda {

// Threads of the one CUDA block that lays the packing out.
inline constexpr int kT1PackScanThreads = 1024;

// Exclusive prefix sums of the jobs' packed bytes and passes: each thread
// sums a run of jobs, one scan (Hillis-Steele) over the runs' sums, then
// each thread writes its run's offsets; entry `count` gets the totals.
__global__ void t1_pack_offsets_kernel(const SharedT1Result* results, uint32_t count, uint64_t* byte_offset,
                                       uint64_t* pass_offset) {
  __shared__ uint64_t bytes[kT1PackScanThreads], passes[kT1PackScanThreads];
  const uint32_t t = threadIdx.x;
  const uint32_t per = (count + blockDim.x - 1) / blockDim.x;
  const uint32_t begin = min(count, t * per), end = min(count, begin + per);
  uint64_t b = 0, p = 0;
  for (uint32_t i = begin; i < end; ++i) {
    b += packed_bytes(results[i]);
    p += packed_passes(results[i]);
  }
  bytes[t] = b;
  passes[t] = p;
  __syncthreads();
  for (uint32_t d = 1; d < blockDim.x; d <<= 1) {
    const uint64_t vb = t >= d ? bytes[t - d] : 0, vp = t >= d ? passes[t - d] : 0;
    __syncthreads();
    bytes[t] += vb;
    passes[t] += vp;
    __syncthreads();
  }
  uint64_t ob = bytes[t] - b, op = passes[t] - p;
  for (uint32_t i = begin; i < end; ++i) {
    byte_offset[i] = ob;
    pass_offset[i] = op;
    ob += packed_bytes(results[i]);
    op += packed_passes(results[i]);
  }
  if (t == blockDim.x - 1) {
    byte_offset[count] = bytes[t];
    pass_offset[count] = passes[t];
  }
}

// A CUDA block per job: its bytes (from slot + 1) and passes to their
// packed places.
__global__ void t1_pack_kernel(T1EncodeArgs args, const uint64_t* byte_offset, const uint64_t* pass_offset,
                               uint8_t* bytes, CodingPass* passes) {
  const uint32_t j = blockIdx.x;
  const SharedT1Result r = args.results[j];
  const uint32_t n_bytes = packed_bytes(r), n_passes = packed_passes(r);
  const uint8_t* from = args.slots + uint64_t{j} * args.slot_capacity + 1;
  uint8_t* to = bytes + byte_offset[j];
  for (uint32_t k = threadIdx.x; k < n_bytes; k += blockDim.x) to[k] = from[k];
  const CodingPass* from_passes = args.passes + uint64_t{j} * kMaxCodingPasses;
  CodingPass* to_passes = passes + pass_offset[j];
  for (uint32_t k = threadIdx.x; k < n_passes; k += blockDim.x) to_passes[k] = from_passes[k];
}

}  // namespace mallat::entropy::cuda
