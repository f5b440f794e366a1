// HT rate control by estimates on the device runner (device_tile_stages.h;
// docs/ARCHITECTURE.md, "HT rate control by estimates"): a tile whose
// blocks rate control codes again (EncodeTile::codes_blocks_again, taken
// by device_rule.h's device_codes_again_problem) is quantised on the
// device as any other; then, instead of Tier-1, each block's plane
// statistics are gathered where its indices lie
// (entropy/cuda/ht/statistics_kernel.cuh) and come down, and the host
// estimates the planes from them (entropy::estimate_ht_planes: the host's
// own floats). The indices stay on the device, in the slot the tile holds,
// and each round of rate control's coding (EncodeTile::ht_block_planes)
// codes the blocks it names there with the device's HT coder, their bytes,
// passes and distortions the CPU runner's block coding stage gives.
#pragma once

#include <functional>

#include <cuda_runtime_api.h>

#include <cstdint>

#include "codec/stages/device_tile_plan.h"
#include "codec/stages/tile_buffers.h"
#include "common/status.h"
#include "common/thread_pool.h"
#include "dwt/cuda/device_buffer.h"
#include "entropy/cuda/tile_block_coders.h"
#include "entropy/ht/compact_plane_statistics.h"

namespace mallat::codec {

class DeviceHtRate {
 public:
  // After the tile's quantisation, enqueued on `stream`: each of the plan's
  // blocks' statistics from its indices among the `plan.t1.coefficients`
  // values at `coefficients` (device memory), on their way down.
  Status gather(const DeviceTilePlan& plan, const int32_t* coefficients, cudaStream_t stream);
  // Once the stream has passed gather's copy: tile.ht_estimates from the
  // statistics, on `pool` (tile.ht_finer_estimates left empty: the rule
  // takes no finer steps). An error where the gather refused a block.
  Status estimate(EncodeTile& tile, ThreadPool& pool);
  // One round: tile.coded as the CPU runner's kBlockCoding gives it
  // (plan_ht_round's blocks coded by `t1` from the kept indices at
  // `coefficients`, the others left uncoded with their Mb as zero
  // bit-planes). A block whose bytes overflow their slot is coded again on
  // the CPU from its indices copied down (the same bytes).
  // `mark` is called, where the round codes any block, before Tier-1's
  // launch (0), after it (1) and after the download (2), so that the
  // runner's times (DeviceTileTimes) hold the rounds' coding too.
  Status code_round(EncodeTile& tile, const DeviceTilePlan& plan, const int32_t* coefficients,
                    entropy::cuda::TileEncoder& t1, ThreadPool& pool, const std::function<Status(int)>& mark);

 private:
  dwt::cuda::DeviceArena jobs_, statistics_;
  dwt::cuda::HostArena statistics_host_, jobs_host_;
  size_t blocks_ = 0;  // gather's
  entropy::HtCompactLayout layout_;  // gather's cut (entropy/ht/compact_plane_statistics.h)
};

}  // namespace mallat::codec
