// The Tier-1 decoding kernels' arguments and their launcher (host code; the
// kernels are in entropy/cuda/ebcot/decode_kernel.cuh and
// entropy/cuda/ht/decode_kernel.cuh, the launch in entropy/cuda/t1_decode_launch.cu). A
// batch is plain device data: the jobs (T1DecodeJob), every block's codeword
// bytes and segment lengths packed at the job's offsets, and per job its
// samples at its offset in one buffer and a result.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "common/status.h"
#include "entropy/t1_device_job.h"
#include "entropy/ebcot/shared_decoder.h"
#include "entropy/ht/shared_code_block.h"

namespace mallat::entropy::cuda {

// Device pointers of one launch. Thread t decodes job order[t] (the order
// puts blocks of like work side by side so a warp's threads finish
// together) with states[t] as its working state.
struct T1DecodeArgs {
  const T1DecodeJob* jobs = nullptr;
  const uint32_t* order = nullptr;
  const uint8_t* bytes = nullptr;
  const uint32_t* segment_lengths = nullptr;
  int32_t* samples = nullptr;
  SharedT1DecodeResult* results = nullptr;
  uint32_t count = 0;
  T1FixedState* states = nullptr;
  // Code-blocks each warp decodes, 1..32 (as the encoding kernel's).
  uint32_t blocks_per_warp = 32;
  // EBCOT's passes walk only the columns they have work in
  // (for_each_marked_column, entropy/ebcot/passes.h).
  bool marked = false;
  // An HT batch (entropy/cuda/ht/decode_kernel.cuh): its kernel runs instead,
  // with ht_states in place of states and the VLC tables' device copies.
  bool ht = false;
  HtBlockState* ht_states = nullptr;
  ht::SharedVlcTables vlc;
};

// Enqueues one launch over the batch on `stream`; reports launch errors.
Status launch_t1_decode(const T1DecodeArgs& args, cudaStream_t stream);

// Loads the kernel's module now (CUDA loads modules lazily, at the first
// launch), so that a start-up on a background thread pays for it.
Status load_t1_decode_kernel();

}  // namespace mallat::entropy::cuda
