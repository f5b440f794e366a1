// The Tier-1 encoding kernels' arguments and their launcher (host code; the
// kernels are in entropy/cuda/ebcot/encode_kernel.cuh and
// entropy/cuda/ht/encode_kernel.cuh, the launch in entropy/cuda/t1_encode_launch.cu).
// A batch is plain device data: the jobs, every block's coefficients in one
// buffer at the job's offset, and per job a fixed output slot of bytes, a
// slot of kMaxCodingPasses passes and a result.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "common/status.h"
#include "entropy/t1_device_job.h"
#include "entropy/ebcot/formed_passes.h"
#include "entropy/ebcot/shared_encoder.h"
#include "entropy/ht/shared_code_block.h"

namespace mallat::entropy::cuda {

// Device pointers of one launch. Thread t codes job order[t] (the order
// puts blocks of like work side by side so a warp's threads finish
// together); job j's outputs are slots[j * slot_capacity ...],
// passes[j * kMaxCodingPasses ...] and results[j].
struct T1EncodeArgs {
  const T1DeviceJob* jobs = nullptr;
  const uint32_t* order = nullptr;
  const int32_t* coefficients = nullptr;
  uint8_t* slots = nullptr;
  uint32_t slot_capacity = 0;
  CodingPass* passes = nullptr;
  SharedT1Result* results = nullptr;
  uint32_t count = 0;
  // One working state per thread in device memory (count of them), or null
  // for states in each thread's local memory (entropy/cuda/ebcot/encode_kernel.cuh).
  T1FixedState* states = nullptr;
  // Code-blocks each warp codes, 1..32 (entropy/cuda/ebcot/encode_kernel.cuh;
  // for the split encoder, its coding kernel's).
  uint32_t blocks_per_warp = 32;
  // EBCOT: room for each warp's lanes' decisions, kMaxPassDecisions / 4 *
  // blocks_per_warp words a warp, the lanes interleaved
  // (entropy/ebcot/recorded_symbols.h); null to code each decision where it
  // is formed.
  uint32_t* decisions = nullptr;
  // EBCOT split in two kernels (entropy/ebcot/formed_passes.h), where
  // formed_streams is set (the jobs taken in `order` by both): job j's
  // decisions go to formed_streams +
  // formed_offsets[j] (count + 1 offsets, each block's room its
  // formed_stream_bound), its plan to formed_blocks[j] and its passes to
  // formed_passes[j * kMaxCodingPasses ...]; forming_words is the shared
  // memory a forming warp needs for the batch's largest block
  // (FormingLayout::shared_total), forming_scratch_words its scratch
  // (scratch_total), job j's at forming_scratch + j * forming_scratch_words.
  // states and decisions are then unused.
  uint8_t* formed_streams = nullptr;
  const uint64_t* formed_offsets = nullptr;
  FormedBlock* formed_blocks = nullptr;
  FormedPass* formed_passes = nullptr;
  uint32_t forming_words = 0;
  // Lanes forming each block: 32, or 16 (two blocks a warp).
  uint32_t forming_lanes = 32;
  uint32_t* forming_scratch = nullptr;
  uint32_t forming_scratch_words = 0;
  // An HT batch (entropy/cuda/ht/encode_kernel.cuh): its kernel runs instead,
  // with one HtBlockState per thread in device memory and the VLC tables'
  // device copies.
  bool ht = false;
  HtBlockState* ht_states = nullptr;
  ht::SharedVlcTables vlc;
};

// Threads per CUDA block: one warp, so that a batch of a few thousand
// code-blocks still spreads over every SM.
inline constexpr int kT1EncodeThreads = 32;

// Enqueues one launch over the batch on `stream` (the kernel variant that
// args.states asks for); reports launch errors.
Status launch_t1_encode(const T1EncodeArgs& args, cudaStream_t stream);

// EBCOT: enqueues the sorting of `host_order` (the jobs in the host's
// order, args.count of them) into `sorted` (what args.order points to) by
// the bit-planes each block codes, most first, stably
// (entropy/cuda/ebcot/plane_order_kernel.cuh), with `bins` (args.count
// bytes) for the kernels' use. args.coefficients must be the blocks' on the
// device by then (earlier on `stream`).
Status launch_t1_plane_order(const T1EncodeArgs& args, const uint32_t* host_order, uint8_t* bins,
                             uint32_t* sorted, cudaStream_t stream);

// Enqueues the packing of a coded batch (entropy/cuda/t1_pack_kernel.cuh) on `stream`:
// byte_offset and pass_offset (count + 1 entries each, the last the
// totals) as lay_out_t1_packed lays them, then each job's bytes and passes
// to `bytes` and `passes` (room for the slots' worst case).
Status launch_t1_pack(const T1EncodeArgs& args, uint64_t* byte_offset, uint64_t* pass_offset, uint8_t* bytes,
                      CodingPass* passes, cudaStream_t stream);

// Loads the kernel's module now (CUDA loads modules lazily, at the first
// launch), so that a start-up on a background thread pays for it.
Status load_t1_encode_kernel();

}  // namespace mallat::entropy::cuda
