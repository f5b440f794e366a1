// The Tier-1 encoding kernel: one code-block per thread, running the shared
// encoder (entropy/ebcot/shared_encoder.h), the same source the CPU tests hold
// to encode_code_block. Device code only; launched by entropy/cuda/t1_encode_launch.cu.
#pragma once

#include "entropy/cuda/t1_encode_launch.h"
#include "entropy/cuda/thread_block.cuh"
#include "entropy/ebcot/shared_encoder.h"

namespace mallat::entropy::cuda {

// The calling thread's room for its decisions (args.decisions): its warp's
// share, the lanes interleaved so that the lanes' k-th decisions are
// adjacent when the lanes code them together.
__device__ inline DecisionBuffer thread_decisions(const T1EncodeArgs& args) {
  if (args.decisions == nullptr) return {};
  const uint32_t lane = threadIdx.x % 32;
  const uint64_t warp = (uint64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  return {args.decisions + warp * (kMaxPassDecisions / 4) * args.blocks_per_warp + lane, args.blocks_per_warp};
}

// Codes job j with `state` as its working state.
__device__ inline void t1_encode_job(const T1EncodeArgs& args, uint32_t j, T1FixedState& state) {
  const SharedT1Block block = shared_block_of(args.jobs[j], args.coefficients);
  const SharedT1Output out{args.slots + static_cast<size_t>(j) * args.slot_capacity, args.slot_capacity,
                           args.passes + static_cast<size_t>(j) * kMaxCodingPasses};
  args.results[j] = encode_code_block_shared(block, state, out, thread_decisions(args));
}

// One code-block per thread, the first args.blocks_per_warp lanes of each
// warp working: the threads of a warp take different branches where their
// blocks differ, so a warp runs its lanes' paths one after the other, and
// fewer blocks per warp (more warps) trade SIMD lanes for latency hiding.
// Three things keep the lanes together: the blocks come ordered by their
// planes (plane_order_kernel.cuh), so a warp's lanes code the same passes;
// each pass's decisions are recorded and then MQ-coded
// (args.decisions, entropy/ebcot/recorded_symbols.h), so the lanes run the
// MQ coder side by side rather than each at the samples where its block has
// a symbol.
// kGlobalState: the thread's state is its own
// contiguous T1FixedState in args.states, so the few hundred words a stripe
// touches share cache lines. Otherwise the state is a local variable, which
// the hardware interleaves word by word across a warp's threads: coalesced
// when the threads touch the same word, but each thread's stripe then spans
// 32 times as many cache lines. The benchmark measures both.
template <bool kGlobalState>
__global__ void __launch_bounds__(kT1EncodeThreads) t1_encode_kernel(T1EncodeArgs args) {
  const uint32_t t = thread_block(args.blocks_per_warp, args.count);
  if (t == kNoBlock) return;
  if constexpr (kGlobalState) {
    t1_encode_job(args, args.order[t], args.states[t]);
  } else {
    T1FixedState state;
    t1_encode_job(args, args.order[t], state);
  }
}

}  // namespace mallat::entropy::cuda
