// The split Tier-1 encoder's kernels (entropy/ebcot/formed_passes.h says
// how the work divides): t1_form_kernel forms every pass's decisions of one
// code-block on a warp, the block's state in the CUDA block's shared
// memory; t1_code_formed_kernel MQ-codes them, one block per thread.
// Device code only; launched by entropy/cuda/t1_encode_launch.cu.
#pragma once

#include "entropy/cuda/t1_encode_launch.h"
#include "entropy/cuda/thread_block.cuh"
#include "entropy/ebcot/formed_coding.h"
#include "entropy/ebcot/formed_passes.h"

namespace mallat::entropy::cuda {

// A forming group's lanes in a warp: `lanes` (16 or 32) of them from
// lane `first`, and their mask for the warp's sync and shuffle intrinsics.
struct FormGroup {
  int lanes;
  int lane;  // this thread's, 0 .. lanes - 1
  unsigned mask;
  __device__ void sync() const { __syncwarp(mask); }
  // The group's OR and exact distortion sum (any order); a group's lanes
  // are a warp or one of its halves, and k < lanes keeps lane ^ k in it.
  __device__ uint32_t all_or(uint32_t v) const {
    for (int k = lanes / 2; k > 0; k /= 2) v |= __shfl_xor_sync(mask, v, k);
    return v;
  }
  __device__ detail::DistortionSum all_sum(detail::DistortionSum d) const {
    for (int k = lanes / 2; k > 0; k /= 2) {
      d.high += __shfl_xor_sync(mask, d.high, k);
      d.low += __shfl_xor_sync(mask, d.low, k);
    }
    return d;
  }
};

// One block's passes formed by a group, form_code_block_lanes's steps with
// the lanes at once: a sync after each step and around each pass's
// joining.
template <bool kVsc>
__device__ inline void form_block_passes(const T1EncodeArgs& args, uint32_t j, const SharedT1Block& block,
                                         const FormingView& v, FormedBlock& plan, const FormGroup& g) {
  const uint64_t begin = args.formed_offsets[j];
  const uint64_t capacity = args.formed_offsets[j + 1] - begin;
  uint8_t* const stream = args.formed_streams + begin;
  FormedPass* const passes = args.formed_passes + static_cast<size_t>(j) * kMaxCodingPasses;
  const uint8_t* zc_lut = MALLAT_T1_TABLE(kZeroCodingLut)[static_cast<int>(block.orientation)].data();
  detail::FormLane state;
  uint32_t next = 0;  // where the next pass's decisions go
  for (int i = 0; i < plan.num_passes; ++i) {
    const FormPassPlan pass = FormPassPlan::of(plan, block, v, i, g.lanes);
    const detail::PlaneGains gains(pass.plane);
    pass.schedule.begin(state, g.lane);
    detail::with_form_kind(pass.type, pass.raw, [&](auto kind) {
      for (int t = 0; t < pass.schedule.steps; ++t) {
        detail::form_step<decltype(kind), kVsc>(v, state, t, pass.schedule, zc_lut, pass.plane, gains);
        g.sync();
      }
    });
    const uint32_t count = form_pass_count(v);
    if (uint64_t{next} + count > capacity) {
      plan.status = SharedT1Status::kOutputOverflow;
      return;
    }
    form_join_pass(v, stream, next, g.lane, g.lanes);
    const detail::DistortionSum dist = g.all_sum(state.dist);
    if (g.lane == 0) passes[i] = FormedPass{next, count, dist.value()};
    next = formed_pass_after(next, count);
    g.sync();
  }
}

// A CUDA block of one warp forms 32 / args.forming_lanes code-blocks, each
// by a group of args.forming_lanes lanes (32, or 16 where asked and the
// batch's blocks have at most 16 stripes): group k takes the launch's block
// 32 / lanes * blockIdx.x + k in args.order (blocks of like planes, whose
// passes match, side by side). Each group's shared room is
// args.forming_words words of dynamic shared memory, its scratch
// args.forming_scratch_words words at its job's place in
// args.forming_scratch.
__global__ void __launch_bounds__(kFormLanes) t1_form_kernel(T1EncodeArgs args) {
  extern __shared__ uint4 room[];
  const int lanes = static_cast<int>(args.forming_lanes);
  const int group = static_cast<int>(threadIdx.x) / lanes;
  const FormGroup g{lanes, static_cast<int>(threadIdx.x) % lanes,
                    lanes == 32 ? 0xFFFFFFFFu : 0xFFFFu << (16 * group)};
  const uint32_t t = blockIdx.x * (kFormLanes / lanes) + group;
  if (t >= args.count) return;
  const uint32_t j = args.order[t];
  const SharedT1Block block = shared_block_of(args.jobs[j], args.coefficients);
  FormedBlock plan = form_block_plan(block, 0);
  if (plan.status == SharedT1Status::kOk) {
    const FormingLayout layout = FormingLayout::of(block.width, block.height);
    uint32_t* const shared = reinterpret_cast<uint32_t*>(room) + group * args.forming_words;
    uint32_t* const scratch = args.forming_scratch + size_t{j} * args.forming_scratch_words;
    const FormingView v = FormingView::in(shared, scratch, layout, block.width, block.height);
    form_load_samples(v, block, g.lane, g.lanes);
    g.sync();
    const uint32_t all = g.all_or(form_load_columns(v, g.lane, g.lanes));
    g.sync();
    plan = form_block_plan(block, all);
    if (plan.status == SharedT1Status::kOk && plan.num_passes > 0) {
      if (block.style.vertical_causal) {
        form_block_passes<true>(args, j, block, v, plan, g);
      } else {
        form_block_passes<false>(args, j, block, v, plan, g);
      }
    }
  }
  if (g.lane == 0) args.formed_blocks[j] = plan;
}

// The formed blocks coded, one a thread, in args.order (blocks of like
// planes side by side), the first args.blocks_per_warp lanes of each warp
// working: a block's decisions are one chain, and the fewer lanes share a
// warp, the less each waits out the others' BYTEOUTs; each lane's contexts
// and the state table in the CUDA block's shared memory
// (detail::FormedMqRoom).
__global__ void __launch_bounds__(kT1EncodeThreads) t1_code_formed_kernel(T1EncodeArgs args) {
  __shared__ uint64_t table[kMqStateCount];
  __shared__ uint64_t entries[kNumContexts * kT1EncodeThreads];
  for (int i = static_cast<int>(threadIdx.x); i < kMqStateCount; i += kT1EncodeThreads) {
    table[i] = MALLAT_T1_TABLE(kMqBranchlessStates)[i];
  }
  __syncthreads();
  const uint32_t t = thread_block(args.blocks_per_warp, args.count);
  if (t == kNoBlock) return;
  const uint32_t j = args.order[t];
  const T1DeviceJob& job = args.jobs[j];
  const SharedT1Output out{args.slots + static_cast<size_t>(j) * args.slot_capacity, args.slot_capacity,
                           args.passes + static_cast<size_t>(j) * kMaxCodingPasses};
  const detail::FormedMqRoom room{entries + threadIdx.x, kT1EncodeThreads, table};
  args.results[j] = code_formed_block(args.formed_blocks[j], args.formed_passes + size_t{j} * kMaxCodingPasses,
                                      args.formed_streams + args.formed_offsets[j],
                                      CodeBlockStyle::from_byte(job.style), job.fraction_bits, out, room);
}

}  // namespace mallat::entropy::cuda
