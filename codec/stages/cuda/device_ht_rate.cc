#include "codec/stages/cuda/device_ht_rate.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "codec/stages/cuda/ht_statistics_launch.h"
#include "codec/stages/cuda/job_indices.h"
#include "dwt/cuda/check.h"
#include "entropy/ht/plane_estimate.h"
#include "entropy/t1_encode_batch.h"

namespace mallat::codec {

using dwt::cuda::check_cuda;

namespace {

// The statistics of `blocks` blocks cut at `layout`'s bit lengths, then
// the gather's flag word: a tile's at about a fifth of the full struct's
// bytes, so that their copy down is small and its host buffer pinned
// (common/host_staging.h).
size_t statistics_bytes(size_t blocks, const entropy::HtCompactLayout& layout) {
  return blocks * layout.stride() + sizeof(uint32_t);
}

// The cut for a tile's jobs: its largest Mb + 1 bit lengths.
entropy::HtCompactLayout layout_of(const std::vector<entropy::T1DeviceJob>& jobs) {
  uint32_t most = 0;
  for (const entropy::T1DeviceJob& job : jobs) most = std::max<uint32_t>(most, job.num_bitplanes);
  return entropy::HtCompactLayout::for_bitplanes(most);
}

}  // namespace

Status DeviceHtRate::gather(const DeviceTilePlan& plan, const int32_t* coefficients, cudaStream_t stream) {
  const std::vector<entropy::T1DeviceJob>& jobs = plan.t1.jobs;
  blocks_ = jobs.size();
  layout_ = layout_of(jobs);
  const size_t bytes = statistics_bytes(blocks_, layout_);
  const size_t job_bytes = jobs.size() * sizeof(entropy::T1DeviceJob);
  MALLAT_RETURN_IF_ERROR(jobs_.reserve(job_bytes));
  MALLAT_RETURN_IF_ERROR(statistics_.reserve(bytes));
  MALLAT_RETURN_IF_ERROR(statistics_host_.reserve(bytes));
  // The jobs up from pinned memory (a pageable copy waits behind the other
  // lanes' in the driver), read until the caller's wait for the statistics.
  MALLAT_RETURN_IF_ERROR(jobs_host_.reserve(job_bytes));
  std::memcpy(jobs_host_.data(), jobs.data(), job_bytes);
  auto* statistics = reinterpret_cast<unsigned char*>(statistics_.data());
  auto* refused = reinterpret_cast<uint32_t*>(statistics_.data() + bytes - sizeof(uint32_t));
  MALLAT_RETURN_IF_ERROR(check_cuda(
      cudaMemcpyAsync(jobs_.data(), jobs_host_.data(), job_bytes, cudaMemcpyHostToDevice, stream),
      "copying the statistics' jobs"));
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaMemsetAsync(refused, 0, sizeof(uint32_t), stream), "clearing a flag"));
  MALLAT_RETURN_IF_ERROR(cuda::launch_ht_statistics(reinterpret_cast<const entropy::T1DeviceJob*>(jobs_.data()),
                                                    jobs.size(), coefficients, plan.t1.coefficients, layout_,
                                                    statistics, refused, stream));
  return check_cuda(
      cudaMemcpyAsync(statistics_host_.data(), statistics_.data(), bytes, cudaMemcpyDeviceToHost, stream),
      "copying the blocks' statistics");
}

Status DeviceHtRate::estimate(EncodeTile& tile, ThreadPool& pool) {
  const size_t n = tile.blocks.size();
  if (n != blocks_) return internal_error("statistics of another tile");
  uint32_t refused = 0;
  std::memcpy(&refused, statistics_host_.data() + statistics_bytes(n, layout_) - sizeof(uint32_t), sizeof refused);
  if (refused == entropy::kHtStatisticsCut) {
    // An index above its block's 2^(Mb + F), which the quantiser's
    // clipping rules out too: the CPU runner's statistics are whole.
    return device_error("the device's statistics passed the tile's bit-planes");
  }
  if (refused != 0) {
    // Not the device's failure: the tile's indices are out of the
    // statistics' range, which the quantiser's clipping rules out.
    return internal_error("the device's statistics refused a code-block (flags " + std::to_string(refused) + ")");
  }
  const auto* statistics = reinterpret_cast<const unsigned char*>(statistics_host_.data());
  tile.ht_estimates.assign(n, {});
  tile.ht_finer_estimates.clear();
  constexpr int64_t kBlocksAtOnce = 32;
  pool.parallel_for_in_pieces(static_cast<int64_t>(n), kBlocksAtOnce, [&](int64_t k) {
    const auto i = static_cast<size_t>(k);
    entropy::HtPlaneStatistics full;
    layout_.expand(statistics + i * layout_.stride(), full);
    tile.ht_estimates[i] = entropy::estimate_ht_planes(full, tile.blocks[i].fraction_bits);
  });
  return Status::Ok();
}

Status DeviceHtRate::code_round(EncodeTile& tile, const DeviceTilePlan& plan, const int32_t* coefficients,
                                entropy::cuda::TileEncoder& t1, ThreadPool& pool,
                                const std::function<Status(int)>& mark) {
  MALLAT_ASSIGN_OR_RETURN(const DeviceHtRound round, plan_ht_round(tile, plan));
  const size_t n = tile.blocks.size();
  tile.coded.assign(n, {});
  for (size_t i = 0; i < n; ++i) tile.coded[i].zero_bitplanes = tile.blocks[i].num_bitplanes;
  if (round.block.empty()) return Status::Ok();
  MALLAT_RETURN_IF_ERROR(t1.upload_jobs(round.t1.jobs, coefficients, round.t1.coefficients, round.t1.slot_capacity));
  MALLAT_RETURN_IF_ERROR(mark(0));
  MALLAT_RETURN_IF_ERROR(t1.encode());
  MALLAT_RETURN_IF_ERROR(mark(1));
  MALLAT_ASSIGN_OR_RETURN(const entropy::cuda::TileEncodedBatch result, t1.download_packed());
  MALLAT_RETURN_IF_ERROR(mark(2));
  const size_t jobs = round.block.size();
  if (result.results.size() != jobs) {
    return device_error("the device coded " + std::to_string(result.results.size()) + " code-blocks of the round's " +
                        std::to_string(jobs));
  }
  std::vector<Status> failed(jobs);
  constexpr int64_t kBlocksAtOnce = 32;
  pool.parallel_for_in_pieces(static_cast<int64_t>(jobs), kBlocksAtOnce, [&](int64_t kk) {
    const auto k = static_cast<size_t>(kk);
    const entropy::SharedT1Result& r = result.results[k];
    entropy::BlockToEncode block = round.shapes[k];
    std::vector<int32_t> samples;
    if (r.status == entropy::SharedT1Status::kOutputOverflow) {
      Result<PlaneView<const int32_t>> copied = cuda::job_indices_to_host(round.t1.jobs[k], coefficients, samples);
      if (!copied.ok()) {
        failed[k] = copied.status();
        return;
      }
      block.coefficients = *copied;
    }
    Result<entropy::EncodedCodeBlock> e = entropy::finish_packed_device_block(
        block, r, result.passes + result.pass_offset[k], result.bytes + result.byte_offset[k]);
    if (!e.ok()) {
      failed[k] = e.status().with_context("code-block " + std::to_string(round.block[k]) + " of the tile");
      return;
    }
    tile.coded[round.block[k]] = std::move(e).value();
  });
  for (const Status& s : failed) MALLAT_RETURN_IF_ERROR(s);
  return Status::Ok();
}

}  // namespace mallat::codec
