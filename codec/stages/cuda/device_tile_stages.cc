// The device runner's slots and context (device_tile_stages.h,
// device_tile_context.h): a covered tile's samples up, DC shift + RCT or
// ICT, the DWT, quantising (9/7) and Tier-1 on the blocks where they lie
// (device_tile_plan.h), all on one stream, then the blocks' bytes down; or,
// for rate control by estimates, the blocks' statistics down and their
// indices kept for its rounds (device_ht_rate.h). The stream is the Tier-1
// encoder's, so every step waits only for the one before it. The runner
// itself is device_tile_runner.cc.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <future>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "codec/stages/cuda/device_decode_slot.h"
#include "codec/stages/cuda/device_ht_rate.h"
#include "codec/stages/cuda/device_tile_context.h"
#include "codec/stages/cuda/fed_upload.h"
#include "codec/stages/cuda/forward_launch.h"
#include "codec/stages/cuda/inverse_launch.h"
#include "codec/stages/cuda/job_indices.h"
#include "codec/stages/cuda/layout_dwt.h"
#include "codec/stages/cuda/staged_copy.h"
#include "codec/stages/colour_rules.h"
#include "codec/stages/device_decode_plan.h"
#include "codec/stages/device_rule.h"
#include "codec/stages/device_tile_plan.h"
#include "codec/stages/device_tile_stages.h"
#include "codec/stages/stored_samples.h"
#include "common/timeline.h"
#include "dwt/cuda/check.h"
#include "dwt/cuda/device_buffer.h"
#include "dwt/cuda/plane_transform.h"
#include "entropy/cuda/cuda_memory.h"
#include "entropy/cuda/tile_block_coders.h"
#include "entropy/t1_encode_batch.h"

namespace mallat::codec {

using dwt::cuda::check_cuda;

// Tier-1's code-blocks per warp: where several slots launch side by side
// (a batch's lanes share them) 16 of a warp's lanes, since their launches
// fill the GPU together (the EBCOT kernel codes eight tiles' blocks in one
// launch fastest at 16; entropy_cuda_bench measures it); a slot alone, the
// choice by batch size (0: auto_blocks_per_warp), which a lone tile's
// kernel runs fastest at.
int blocks_per_warp(int sharing) { return sharing > 1 ? 16 : 0; }
constexpr entropy::cuda::T1StateMemory kStateMemory = entropy::cuda::T1StateMemory::kGlobal;

// A tile of kStraightUploadBytes or more whose components are all at their
// stored width (Component::stored) goes up from the components' own rows
// through pinned chunks (staged_copy.h), with no copy of the tile in host
// memory: for one large image that copy is the image again. A smaller
// tile's rows are gathered into one buffer and go up in one copy.
constexpr uint64_t kStraightUploadBytes = uint64_t{64} << 20;

// A large tile's coded blocks (one fed, or uploaded straight) come down
// in ranges of about this many bytes through pinned chunks, each range's
// blocks finished on the pool while the next comes down.
constexpr size_t kDownloadRangeBytes = size_t{8} << 20;

bool uploads_straight(const EncodeTile& tile, const DeviceTilePlan& plan) {
  if (plan.stored_size < kStraightUploadBytes) return false;
  for (size_t c = 0; c < tile.planes.size(); ++c) {
    if (tile.image->components[c].stored.empty()) return false;
  }
  return true;
}

// A run's steps' times and its span on the device, to the context's sums.
using AddTimes = std::function<void(const DeviceTileTimes&, const DeviceSpan&)>;

// One tile at a time on the device: a Tier-1 encoder with its stream and
// the buffers a tile needs, grown to the largest tile and reused.
class DeviceTileSlot {
 public:
  // `sharing` as start_device_tile_context's.
  explicit DeviceTileSlot(int sharing) : sharing_(sharing) {}

  // Makes the slot's side for `use` where it has none: the side a context
  // was started for on its start-up thread (start_slots), the other at the
  // slot's first tile of that direction.
  Status start(DeviceTileUse use) {
    if (use == DeviceTileUse::kDecode && !decoder_) {
      MALLAT_ASSIGN_OR_RETURN(decoder_, DeviceDecodeSlot::create(sharing_));
    }
    if (use == DeviceTileUse::kEncode && !t1_) {
      MALLAT_ASSIGN_OR_RETURN(t1_, entropy::cuda::TileEncoder::create(kStateMemory, blocks_per_warp(sharing_)));
    }
    return Status::Ok();
  }

  // Runs every forward stage of `tile`; `add` takes the steps' times.
  // With tile.ht_statistics, the stages to quantisation and the blocks'
  // statistics instead of Tier-1 (device_ht_rate.h), the indices kept for
  // code_round while the caller holds the slot.
  Status run(EncodeTile& tile, ThreadPool& pool, const AddTimes& add);
  // One round of rate control's coding of the kept tile; `add` takes its
  // Tier-1 kernel's and download's times (no tile counted: run counted it).
  Status code_round(EncodeTile& tile, ThreadPool& pool, const AddTimes& add) {
    if (tile.blocks.empty()) {
      tile.coded.clear();
      return Status::Ok();
    }
    if (!kept_) return internal_error("a round of coding on a slot that kept no tile");
    constexpr Step kMarks[] = {kQuantised, kCoded, kDownloaded};
    bool coded = false;
    double started_ms = 0;
    MALLAT_RETURN_IF_ERROR(ht_.code_round(tile, kept_plan_, in(), *t1_, pool, [&](int step) {
      if (!coded) started_ms = steady_ms();
      coded = true;
      return record(kMarks[step], t1_->stream());
    }));
    if (!coded) return Status::Ok();
    float ms[2] = {};
    MALLAT_RETURN_IF_ERROR(check_cuda(cudaEventSynchronize(events_[kDownloaded].get()), "cudaEventSynchronize"));
    for (int i = 0; i < 2; ++i) {
      MALLAT_RETURN_IF_ERROR(check_cuda(
          cudaEventElapsedTime(&ms[i], events_[kMarks[i]].get(), events_[kMarks[i + 1]].get()), "cudaEventElapsedTime"));
    }
    DeviceTileTimes t;
    t.tier1_ms = ms[0];
    t.download_ms = ms[1];
    add(t, span_of_steps(started_ms, ms, 2, 0));
    return Status::Ok();
  }
  // The slot no longer keeps a tile's indices.
  void forget_kept() {
    kept_ = false;
    kept_plan_ = {};
  }
  // Runs every inverse stage of `tile` (DeviceDecodeSlot::run).
  Result<bool> run(DecodeTile& tile, ThreadPool& pool, DeviceDecodeTimes& times, DeviceSpan& span) {
    MALLAT_RETURN_IF_ERROR(start(DeviceTileUse::kDecode));
    return decoder_->run(tile, pool, times, span);
  }

 private:
  // The DWT's input and output, one buffer (device_tile_plan.h: Tier-1
  // reads both as one batch).
  int32_t* in() const { return reinterpret_cast<int32_t*>(planes_.data()); }
  int32_t* out() const { return in() + plane_samples_; }
  Result<bool> narrow(const EncodeTile& tile, const DeviceTilePlan& plan, ThreadPool& pool);
  Status upload_stored(const EncodeTile& tile, const DeviceTilePlan& plan, cudaStream_t s, ThreadPool& pool);
  Status upload_samples(const EncodeTile& tile, const DeviceTilePlan& plan, cudaStream_t s);
  Status colour(const EncodeTile& tile, const DeviceTilePlan& plan, cudaStream_t s);
  Status transform(const EncodeTile& tile, const DeviceTilePlan& plan, cudaStream_t s);
  Status quantise(const DeviceTilePlan& plan, cudaStream_t s);
  Status finish(EncodeTile& tile, const DeviceTilePlan& plan, const entropy::cuda::TileEncodedBatch& result,
                ThreadPool& pool);
  // What quantising found (found_host_, once the stream passed its copy)
  // into tile.quantisation.
  void take_found(EncodeTile& tile, const DeviceTilePlan& plan) const {
    const auto* found = reinterpret_cast<const quant::QuantizationError*>(found_host_.data());
    for (const QuantiseJob& q : plan.quantise) tile.quantisation[q.block] = found[q.block];
  }
  // finish's blocks [first, end) alone.
  Status finish_blocks(EncodeTile& tile, const DeviceTilePlan& plan, const entropy::cuda::TileEncodedBatch& result,
                       size_t first, size_t end, ThreadPool& pool);

  int sharing_ = 1;
  std::unique_ptr<entropy::cuda::TileEncoder> t1_;
  std::unique_ptr<DeviceDecodeSlot> decoder_;
  dwt::cuda::DeviceArena planes_, scratch_[2], quantise_, found_, stored_;
  uint64_t plane_samples_ = 0;  // the tile's: where out() starts
  dwt::cuda::HostArena stored_host_;  // free again once run() returns: its copy has been waited for
  dwt::cuda::HostArena found_host_;   // what quantising found, per block (9/7), down with the blocks
  // The quantising jobs on their way up: pinned, as the Tier-1 encoder's
  // jobs (a pageable copy waits behind the other lanes' in the driver);
  // rewritten only by the slot's next tile, after narrow's wait.
  dwt::cuda::HostArena quantise_host_;
  cuda::StagedCopier copier_;         // a large tile's stored rows up from the image (uploads_straight)
  cuda::FedUpload fed_;               // a fed tile's rows up from its feed (EncodeTile::feed)
  DeviceHtRate ht_;                   // rate control by estimates (EncodeTile::ht_statistics)
  DeviceTilePlan kept_plan_;          // the kept tile's, for code_round
  bool kept_ = false;
  // Events between the device's steps (times_), made at the first tile.
  enum Step { kStart, kUploaded, kTransformed, kQuantised, kCoded, kDownloaded, kSteps };
  std::vector<dwt::cuda::Event> events_;
  DeviceSpan span_;  // the last run's, from kStart to kDownloaded (busy_time.h)
  Status record(Step step, cudaStream_t s);
  Result<DeviceTileTimes> step_times(double narrow_ms, double finish_ms);
};

DeviceTileContext::DeviceTileContext(std::future<StartedSlots> starting) : starting_(std::move(starting)) {}
DeviceTileContext::~DeviceTileContext() = default;

Status DeviceTileContext::code_round(DeviceTileSlot& held, EncodeTile& tile, ThreadPool& pool) {
  return after_run(held.code_round(
      tile, pool, [&](const DeviceTileTimes& t, const DeviceSpan& span) { add_times(t, span); }));
}

void DeviceTileContext::release(DeviceTileSlot* held) {
  held->forget_kept();
  give_back(held);
}

bool DeviceTileContext::started() {
  std::lock_guard<std::mutex> lock(start_mutex_);
  if (starting_.valid() && starting_.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
    StartedSlots made = starting_.get();
    if (made.ok()) {
      std::lock_guard<std::mutex> free_lock(free_mutex_);
      for (auto& slot : *made) {
        slots_.push_back(std::move(slot));
        free_.push_back(slots_.back().get());
      }
    } else {
      start_status_ = made.status();
    }
  }
  return !slots_.empty();
}

Status DeviceTileContext::wait_started() {
  {
    std::lock_guard<std::mutex> lock(start_mutex_);
    if (starting_.valid()) starting_.wait();
  }
  if (started()) return Status::Ok();
  return start_status_.ok() ? device_error("the device runner has no device") : start_status_;
}

Status DeviceTileContext::run(EncodeTile& tile, ThreadPool& pool) {
  MALLAT_RETURN_IF_ERROR(wait_started());
  return after_run(on_free_slot([&](DeviceTileSlot& slot) {
    return slot.run(tile, pool, [&](const DeviceTileTimes& t, const DeviceSpan& span) { add_times(t, span); });
  }));
}

Status DeviceTileContext::run_and_hold(EncodeTile& tile, ThreadPool& pool, DeviceTileSlot*& held) {
  held = nullptr;
  MALLAT_RETURN_IF_ERROR(wait_started());
  DeviceTileSlot* slot = take();
  const Status ran = after_run(
      slot->run(tile, pool, [&](const DeviceTileTimes& t, const DeviceSpan& span) { add_times(t, span); }));
  if (!ran.ok()) {
    release(slot);
    return ran;
  }
  held = slot;
  return ran;
}

Result<bool> DeviceTileContext::run(DecodeTile& tile, ThreadPool& pool) {
  MALLAT_RETURN_IF_ERROR(wait_started());
  DeviceDecodeTimes t;
  DeviceSpan span;
  Result<bool> done = on_free_slot([&](DeviceTileSlot& slot) { return slot.run(tile, pool, t, span); });
  {
    std::lock_guard<std::mutex> lock(times_mutex_);
    decode_times_ += t;
    decode_busy_.add(span);
  }
  const Status ran = after_run(done.ok() ? Status::Ok() : done.status());
  if (!ran.ok()) return ran;
  return done;
}

Status DeviceTileSlot::record(Step step, cudaStream_t s) {
  if (events_.empty()) {
    for (int i = 0; i < kSteps; ++i) {
      cudaEvent_t e = nullptr;
      MALLAT_RETURN_IF_ERROR(check_cuda(cudaEventCreate(&e), "cudaEventCreate"));
      events_.emplace_back(e);
    }
  }
  return check_cuda(cudaEventRecord(events_[step].get(), s), "cudaEventRecord");
}

// The device's steps from the events (all passed: the download waited).
Result<DeviceTileTimes> DeviceTileSlot::step_times(double narrow_ms, double finish_ms) {
  float ms[kSteps] = {};
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaEventSynchronize(events_[kDownloaded].get()), "cudaEventSynchronize"));
  for (int i = kUploaded; i < kSteps; ++i) {
    MALLAT_RETURN_IF_ERROR(
        check_cuda(cudaEventElapsedTime(&ms[i], events_[i - 1].get(), events_[i].get()), "cudaEventElapsedTime"));
  }
  span_ = span_of_steps(span_.start_ms, ms + kUploaded, kSteps - kUploaded, kCoded - kUploaded);
  DeviceTileTimes t;
  t.tiles = 1;
  t.narrow_ms = narrow_ms;
  t.upload_ms = ms[kUploaded];
  t.colour_dwt_ms = ms[kTransformed];
  t.quantise_ms = ms[kQuantised];
  t.tier1_ms = ms[kCoded];
  t.download_ms = ms[kDownloaded];
  t.finish_ms = finish_ms;
  return t;
}

// The tile's samples narrowed into the host buffer by the pool's
// threads, a run of rows each; false where a sample is out of its range.
Result<bool> DeviceTileSlot::narrow(const EncodeTile& tile, const DeviceTilePlan& plan, ThreadPool& pool) {
  // A run that failed may have left a copy from the buffer queued.
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaStreamSynchronize(t1_->stream()), "waiting for the device"));
  // A fed tile's rows go up as the feed gives them (upload_samples).
  if (tile.feed != nullptr) return false;
  if (uploads_straight(tile, plan)) return true;
  MALLAT_RETURN_IF_ERROR(stored_host_.reserve(plan.stored_size));
  constexpr int64_t kRows = 64;
  std::vector<std::pair<size_t, int64_t>> runs;  // (plane, first row)
  for (size_t c = 0; c < tile.planes.size(); ++c) {
    for (int64_t y = 0; y < tile.planes[c].height(); y += kRows) runs.emplace_back(c, y);
  }
  std::atomic<bool> in_range{true};
  pool.parallel_for(static_cast<int64_t>(runs.size()), [&](int64_t k) {
    const auto [c, y] = runs[static_cast<size_t>(k)];
    const TilePlane& plane = tile.planes[c];
    const Component& comp = tile.image->components[c];
    const int64_t rows = std::min<int64_t>(kRows, plane.height() - y);
    const int64_t bytes = stored_bytes(comp.precision);
    std::byte* to = stored_host_.data() + plan.stored_offset[c] + static_cast<uint64_t>(y * plane.width() * bytes);
    if (!comp.stored.empty()) {
      // Already at their stored width (Component::stored): the rows as they are.
      for (int64_t r = 0; r < rows; ++r) {
        std::memcpy(to + r * plane.width() * bytes,
                    comp.stored.data() + ((tile.source_y[c] + y + r) * comp.width + tile.source_x[c]) * bytes,
                    static_cast<size_t>(plane.width() * bytes));
      }
      return;
    }
    const int32_t* from = comp.samples.data() + (tile.source_y[c] + y) * comp.width + tile.source_x[c];
    if (!narrow_rows(from, comp.width, plane.width(), rows, comp.precision, comp.is_signed, to)) in_range = false;
  });
  return in_range.load();
}

// The stored samples up in one copy (or, for uploads_straight, from the
// components' rows through the copier), then widened into the planes.
Status DeviceTileSlot::upload_stored(const EncodeTile& tile, const DeviceTilePlan& plan, cudaStream_t s,
                                     ThreadPool& pool) {
  MALLAT_RETURN_IF_ERROR(stored_.reserve(plan.stored_size));
  if (uploads_straight(tile, plan)) {
    for (size_t c = 0; c < tile.planes.size(); ++c) {
      const TilePlane& plane = tile.planes[c];
      const Component& comp = tile.image->components[c];
      const auto bytes = static_cast<size_t>(stored_bytes(comp.precision));
      const std::byte* from = reinterpret_cast<const std::byte*>(comp.stored.data()) +
                              (tile.source_y[c] * comp.width + tile.source_x[c]) * static_cast<int64_t>(bytes);
      const size_t row = static_cast<size_t>(plane.width()) * bytes;
      MALLAT_RETURN_IF_ERROR(copier_.upload(from, static_cast<size_t>(comp.width) * bytes,
                                            stored_.data() + plan.stored_offset[c], row, row,
                                            static_cast<size_t>(plane.height()), s, pool));
    }
  } else {
    MALLAT_RETURN_IF_ERROR(check_cuda(
        cudaMemcpyAsync(stored_.data(), stored_host_.data(), plan.stored_size, cudaMemcpyHostToDevice, s),
        "copying a tile's stored samples to the device"));
  }
  for (size_t c = 0; c < tile.planes.size(); ++c) {
    const TilePlane& plane = tile.planes[c];
    const Component& comp = tile.image->components[c];
    MALLAT_RETURN_IF_ERROR(cuda::launch_widen(stored_.data() + plan.stored_offset[c], comp.precision, comp.is_signed,
                                              plane.width(), plane.height(), in() + plan.plane_offset[c],
                                              plan.plane_pitch[c], s));
  }
  return Status::Ok();
}

// The int32 samples as they are, for an image whose samples do not fit
// their precision (the CPU path codes them as they are too), or a fed
// tile's from its feed.
Status DeviceTileSlot::upload_samples(const EncodeTile& tile, const DeviceTilePlan& plan, cudaStream_t s) {
  if (tile.feed != nullptr) {
    std::vector<int32_t*> planes;
    for (size_t c = 0; c < tile.planes.size(); ++c) planes.push_back(in() + plan.plane_offset[c]);
    cuda::FedPlanes to;
    to.planes = planes;
    to.pitch = std::span<const int64_t>(plan.plane_pitch.data(), tile.planes.size());
    if (tile.stored_feed != nullptr) {
      MALLAT_RETURN_IF_ERROR(stored_.reserve(plan.stored_size));
      to.stored = stored_.data();
      to.stored_offset = std::span<const uint64_t>(plan.stored_offset.data(), tile.planes.size());
    }
    return fed_.upload(tile, to, s);
  }
  for (size_t c = 0; c < tile.planes.size(); ++c) {
    const TilePlane& plane = tile.planes[c];
    if (plane.rect.empty()) continue;
    const Component& comp = tile.image->components[c];
    const int32_t* from = comp.samples.data() + tile.source_y[c] * comp.width + tile.source_x[c];
    MALLAT_RETURN_IF_ERROR(check_cuda(
        cudaMemcpy2DAsync(in() + plan.plane_offset[c], plan.plane_pitch[c] * sizeof(int32_t), from,
                          comp.width * sizeof(int32_t), plane.width() * sizeof(int32_t), plane.height(),
                          cudaMemcpyHostToDevice, s),
        "copying a tile's samples to the device"));
  }
  return Status::Ok();
}

// G.1.2 on every plane; G.2 (5/3) or G.3 (9/7) on planes 0..2 (of one size
// and wavelet: device_tile_unsupported). A 9/7 plane turns into floats.
Status DeviceTileSlot::colour(const EncodeTile& tile, const DeviceTilePlan& plan, cudaStream_t s) {
  const auto count_of = [&](size_t c) {
    return static_cast<size_t>(plan.plane_pitch[c] * tile.planes[c].height());
  };
  const auto floats = [&](size_t c) { return reinterpret_cast<float*>(in() + plan.plane_offset[c]); };
  // Planes 0..2 have one size, so one pitch: the rows' padding is
  // transformed too, and never read.
  size_t first = 0;
  if (tile.colour_transform) {
    int32_t shift[3];
    for (size_t c = 0; c < 3; ++c) {
      const Component& comp = tile.image->components[c];
      shift[c] = dc_shift_of(comp.precision, comp.is_signed);
    }
    if (tile.planes[0].wavelet == dwt::Wavelet::k97) {
      for (size_t c = 0; c < 3; ++c)
        MALLAT_RETURN_IF_ERROR(cuda::launch_to_float(in() + plan.plane_offset[c], count_of(c), shift[c], s));
      MALLAT_RETURN_IF_ERROR(cuda::launch_ict_forward(floats(0), floats(1), floats(2), count_of(0), s));
    } else {
      MALLAT_RETURN_IF_ERROR(cuda::launch_rct_forward(in() + plan.plane_offset[0], in() + plan.plane_offset[1],
                                                      in() + plan.plane_offset[2], count_of(0), shift, s));
    }
    first = 3;
  }
  for (size_t c = first; c < tile.planes.size(); ++c) {
    const Component& comp = tile.image->components[c];
    const int32_t shift = dc_shift_of(comp.precision, comp.is_signed);
    MALLAT_RETURN_IF_ERROR(tile.planes[c].wavelet == dwt::Wavelet::k97
                               ? cuda::launch_to_float(in() + plan.plane_offset[c], count_of(c), shift, s)
                               : cuda::launch_dc_shift(in() + plan.plane_offset[c], count_of(c), shift, s));
  }
  return Status::Ok();
}

// Annex F per plane into the output buffer's packed layout (dwt/geometry.h).
Status DeviceTileSlot::transform(const EncodeTile& tile, const DeviceTilePlan& plan, cudaStream_t s) {
  return transform_layout(dwt::Direction::kForward, tile.planes, plan, in(), out(), scratch_[0].data(),
                          scratch_[1].data(), s);
}

// Each 9/7 block's floats in the DWT's output quantised (Annex E) into
// the input buffer at its place, what quantising found on its way down to
// found_host_; a 5/3 block's integers are coded where the DWT left them.
Status DeviceTileSlot::quantise(const DeviceTilePlan& plan, cudaStream_t s) {
  if (plan.quantise.empty()) return Status::Ok();
  const size_t found_bytes = plan.t1.jobs.size() * sizeof(quant::QuantizationError);
  MALLAT_RETURN_IF_ERROR(quantise_.reserve(plan.quantise.size() * sizeof(QuantiseJob)));
  MALLAT_RETURN_IF_ERROR(found_.reserve(found_bytes));
  MALLAT_RETURN_IF_ERROR(found_host_.reserve(found_bytes));
  const size_t job_bytes = plan.quantise.size() * sizeof(QuantiseJob);
  MALLAT_RETURN_IF_ERROR(quantise_host_.reserve(job_bytes));
  std::memcpy(quantise_host_.data(), plan.quantise.data(), job_bytes);
  MALLAT_RETURN_IF_ERROR(check_cuda(
      cudaMemcpyAsync(quantise_.data(), quantise_host_.data(), job_bytes, cudaMemcpyHostToDevice, s),
      "copying the quantising jobs"));
  auto* found = reinterpret_cast<quant::QuantizationError*>(found_.data());
  MALLAT_RETURN_IF_ERROR(cuda::launch_quantise(reinterpret_cast<const QuantiseJob*>(quantise_.data()),
                                               plan.quantise.size(), reinterpret_cast<const float*>(out()),
                                               in(), found, s));
  return check_cuda(cudaMemcpyAsync(found_host_.data(), found, found_bytes, cudaMemcpyDeviceToHost, s),
                    "copying what quantising found");
}

// Each block's packed bytes and passes into its EncodedCodeBlock; a block
// whose bytes did not fit its slot is coded again on the CPU from its
// samples on the device (entropy::finish_packed_device_block: the same
// bytes).
Status DeviceTileSlot::finish(EncodeTile& tile, const DeviceTilePlan& plan,
                              const entropy::cuda::TileEncodedBatch& result, ThreadPool& pool) {
  return finish_blocks(tile, plan, result, 0, tile.blocks.size(), pool);
}

Status DeviceTileSlot::finish_blocks(EncodeTile& tile, const DeviceTilePlan& plan,
                                     const entropy::cuda::TileEncodedBatch& result, size_t first, size_t end,
                                     ThreadPool& pool) {
  const size_t n = tile.blocks.size();
  if (result.results.size() != n) {
    return device_error("the device coded " + std::to_string(result.results.size()) + " code-blocks of the tile's " +
                        std::to_string(n));
  }
  // found_host_'s copy came before the blocks' on the stream, which
  // download_packed waited for.
  if (first == 0) take_found(tile, plan);
  std::vector<Status> failed(end - first);
  // A block's copy is a small item: many to a pool item, so that they do
  // not each pay the pool's hand-over (a large tile has 90,000 and more).
  constexpr int64_t kBlocksAtOnce = 32;
  pool.parallel_for_in_pieces(static_cast<int64_t>(end - first), kBlocksAtOnce, [&](int64_t k) {
    const size_t i = first + static_cast<size_t>(k);
    const entropy::SharedT1Result& r = result.results[i];
    const entropy::CodingPass* passes = result.passes + result.pass_offset[i];
    const uint8_t* bytes = result.bytes + result.byte_offset[i];
    entropy::BlockToEncode block;
    std::vector<int32_t> samples;
    if (r.status == entropy::SharedT1Status::kOutputOverflow) {
      Result<PlaneView<const int32_t>> copied = cuda::job_indices_to_host(plan.t1.jobs[i], in(), samples);
      if (!copied.ok()) {
        failed[i - first] = copied.status();
        return;
      }
      const EncodeBlock& b = tile.blocks[i];
      block.coefficients = *copied;
      block.orientation = b.orientation;
      block.num_bitplanes = b.num_bitplanes;
      block.style = b.style;
      block.fraction_bits = b.fraction_bits;
    }
    Result<entropy::EncodedCodeBlock> e = entropy::finish_packed_device_block(block, r, passes, bytes);
    if (!e.ok()) {
      failed[i - first] = e.status().with_context("code-block " + std::to_string(i) + " of the tile");
      return;
    }
    tile.coded[i] = std::move(e).value();
  });
  for (const Status& s : failed) MALLAT_RETURN_IF_ERROR(s);
  return Status::Ok();
}

Status DeviceTileSlot::run(EncodeTile& tile, ThreadPool& pool, const AddTimes& add) {
  MALLAT_RETURN_IF_ERROR(start(DeviceTileUse::kEncode));
  MALLAT_ASSIGN_OR_RETURN(const DeviceTilePlan plan, plan_device_tile(tile));
  const size_t n = tile.blocks.size();
  tile.coded.assign(n, {});
  tile.quantisation.assign(n, {});  // the 5/3's blocks quantise nothing (no ROI here)
  if (n == 0) return Status::Ok();
  const cudaStream_t s = t1_->stream();
  // With MALLAT_TIMELINE, each step waits for the device and is a span of
  // its own (dt_*), so that the timeline shows where a tile's time goes;
  // otherwise the steps are queued on the stream and only download waits.
  const bool marked = timeline::enabled();
  timeline::Clock::time_point since = marked ? timeline::Clock::now() : timeline::Clock::time_point{};
  const auto mark = [&](const char* what) -> Status {
    if (!marked) return Status::Ok();
    MALLAT_RETURN_IF_ERROR(check_cuda(cudaStreamSynchronize(s), "waiting for the device"));
    const timeline::Clock::time_point now = timeline::Clock::now();
    timeline::record(what, since, now, timeline::current_tag());
    since = now;
    return Status::Ok();
  };
  MALLAT_RETURN_IF_ERROR(planes_.reserve(2 * plan.plane_samples * sizeof(int32_t)));
  plane_samples_ = plan.plane_samples;
  for (auto& scratch : scratch_) MALLAT_RETURN_IF_ERROR(scratch.reserve(plan.scratch_samples * sizeof(int32_t)));
  MALLAT_RETURN_IF_ERROR(mark("dt_reserve"));
  double narrow_ms = 0, finish_ms = 0;
  bool narrowed = false;
  {
    const entropy::cuda::StepClock clock(&narrow_ms);
    MALLAT_ASSIGN_OR_RETURN(narrowed, narrow(tile, plan, pool));
  }
  MALLAT_RETURN_IF_ERROR(mark("dt_narrow"));
  // The jobs first: their copy waits for the host, so that from here the
  // stream's steps follow one another with no host step between them.
  // (A tile kept for rate control codes its blocks in rounds: their own jobs.)
  if (!tile.ht_statistics) {
    MALLAT_RETURN_IF_ERROR(t1_->upload_jobs(plan.t1.jobs, in(), plan.t1.coefficients, plan.t1.slot_capacity));
  }
  span_.start_ms = steady_ms();  // the stream idle: the jobs' copy waited
  MALLAT_RETURN_IF_ERROR(record(kStart, s));
  MALLAT_RETURN_IF_ERROR(narrowed ? upload_stored(tile, plan, s, pool) : upload_samples(tile, plan, s));
  MALLAT_RETURN_IF_ERROR(record(kUploaded, s));
  MALLAT_RETURN_IF_ERROR(mark("dt_upload"));
  MALLAT_RETURN_IF_ERROR(colour(tile, plan, s));
  MALLAT_RETURN_IF_ERROR(transform(tile, plan, s));
  MALLAT_RETURN_IF_ERROR(record(kTransformed, s));
  MALLAT_RETURN_IF_ERROR(mark("dt_colour_dwt"));
  MALLAT_RETURN_IF_ERROR(quantise(plan, s));
  MALLAT_RETURN_IF_ERROR(record(kQuantised, s));
  MALLAT_RETURN_IF_ERROR(mark("dt_quantise"));
  if (tile.ht_statistics) {
    // The statistics where Tier-1's bytes would be (its time theirs); the
    // indices stay for code_round.
    MALLAT_RETURN_IF_ERROR(ht_.gather(plan, in(), s));
    MALLAT_RETURN_IF_ERROR(record(kCoded, s));
    MALLAT_RETURN_IF_ERROR(record(kDownloaded, s));
    MALLAT_RETURN_IF_ERROR(check_cuda(cudaStreamSynchronize(s), "waiting for the device"));
    MALLAT_RETURN_IF_ERROR(mark("dt_statistics"));
    take_found(tile, plan);
    {
      const entropy::cuda::StepClock clock(&finish_ms);
      MALLAT_RETURN_IF_ERROR(ht_.estimate(tile, pool));
    }
    kept_plan_ = plan;
    kept_ = true;
    MALLAT_ASSIGN_OR_RETURN(const DeviceTileTimes times, step_times(narrow_ms, finish_ms));
    add(times, span_);
    return Status::Ok();
  }
  MALLAT_RETURN_IF_ERROR(t1_->encode());
  MALLAT_RETURN_IF_ERROR(record(kCoded, s));
  MALLAT_RETURN_IF_ERROR(mark("dt_tier1"));
  if (tile.feed != nullptr || uploads_straight(tile, plan)) {
    // A large tile's blocks finished range by range as their bytes come
    // down (download_packed_in_ranges): no host copy of all of them.
    const entropy::cuda::StepClock clock(&finish_ms);
    MALLAT_RETURN_IF_ERROR(t1_->download_packed_in_ranges(
        kDownloadRangeBytes, [&](const entropy::cuda::TileEncodedBatch& part, size_t first, size_t end) {
          return finish_blocks(tile, plan, part, first, end, pool);
        }));
    MALLAT_RETURN_IF_ERROR(record(kDownloaded, s));
    MALLAT_RETURN_IF_ERROR(mark("dt_download_finish"));
  } else {
    MALLAT_ASSIGN_OR_RETURN(const entropy::cuda::TileEncodedBatch result, t1_->download_packed());
    MALLAT_RETURN_IF_ERROR(record(kDownloaded, s));
    MALLAT_RETURN_IF_ERROR(mark("dt_download"));
    const entropy::cuda::StepClock clock(&finish_ms);
    MALLAT_RETURN_IF_ERROR(finish(tile, plan, result, pool));
  }
  MALLAT_ASSIGN_OR_RETURN(const DeviceTileTimes times, step_times(narrow_ms, finish_ms));
  add(times, span_);
  return mark("dt_finish");
}


namespace {

// `slots` slots, each with its stream: Tier-1 encoders for an encode's
// context; for a decode's, the decoding side (its stream, the Tier-1
// decoding kernel) with the inverse kernels loaded, so that the first
// tiles do not wait for them.
StartedSlots start_slots(int sharing, int slots, DeviceTileUse use) {
  std::vector<std::unique_ptr<DeviceTileSlot>> made;
  for (int k = 0; k < std::max(1, slots); ++k) {
    // The first slot's start makes CUDA's context.
    const timeline::Span span(k == 0 ? "dt_start_context" : "dt_start_slot");
    auto slot = std::make_unique<DeviceTileSlot>(sharing);
    MALLAT_RETURN_IF_ERROR(slot->start(use));
    made.push_back(std::move(slot));
  }
  // After the first slot's start, which set the context's flags.
  if (use == DeviceTileUse::kDecode) {
    const timeline::Span span("dt_load_kernels");
    MALLAT_RETURN_IF_ERROR(cuda::load_inverse_kernels());
  }
  return made;
}

}  // namespace

Result<std::shared_ptr<DeviceTileContext>> make_device_tile_context(int sharing) {
  std::promise<StartedSlots> started;
  started.set_value(start_slots(sharing, 1, DeviceTileUse::kEncode));
  auto context = std::make_shared<DeviceTileContext>(started.get_future());
  MALLAT_RETURN_IF_ERROR(context->wait_started());
  return context;
}

std::shared_ptr<DeviceTileContext> start_device_tile_context(int sharing, int slots, DeviceTileUse use) {
  return std::make_shared<DeviceTileContext>(
      std::async(std::launch::async, [sharing, slots, use] { return start_slots(sharing, slots, use); }));
}

Status wait_started(DeviceTileContext& device) { return device.wait_started(); }

DeviceTileTimes device_tile_times(DeviceTileContext& device) { return device.times(); }
Status device_tile_failure(DeviceTileContext& device) { return device.failure(); }
void inject_device_tile_failures(DeviceTileContext& device, int runs, int after) {
  device.inject_failures(runs, after);
}
DeviceDecodeTimes device_decode_times(DeviceTileContext& device) { return device.decode_times(); }

}  // namespace mallat::codec
