#include "codec/stages/cuda/device_decode_slot.h"

#include <algorithm>
#include <atomic>
#include <span>
#include <string>

#include "codec/stages/cuda/inverse_launch.h"
#include "codec/stages/cuda/layout_dwt.h"
#include "codec/stages/device_decode_plan.h"
#include "codec/stages/stored_samples.h"
#include "common/host_staging.h"
#include "common/large_buffer.h"
#include "common/timeline.h"
#include "dwt/cuda/check.h"
#include "entropy/cuda/cuda_memory.h"

namespace mallat::codec {

using dwt::cuda::check_cuda;

namespace {

// Tier-1 decoding's code-blocks per warp for a tile's launch. Alone, the
// decoder's own rule by batch size (2 a warp for a 3840x2048 tile's 5784
// blocks). Beside other slots' launches, a tile whose blocks carry many
// bytes (long decodes) takes kLongBlocksPerWarp, so that the slots' launches
// fit the GPU together instead of queueing; a tile of short blocks keeps
// the rule, whose many warps hide their latency better. A lossless batch
// (about 1.4 KB a block), its blocks ordered by their bytes
// (T1DeviceDecoder::upload), ran fastest at 6 a warp, a lossy one
// (about 0.2 KB a block) by batch size (docs/PERFORMANCE.md, "Part 1
// decoding's blocks ordered by their bytes").
constexpr size_t kLongBlockBytes = 512;
constexpr int kLongBlocksPerWarp = 6;

int decode_blocks_per_warp(int sharing, size_t bytes, size_t blocks) {
  if (sharing <= 1 || blocks == 0) return 0;
  return bytes / blocks >= kLongBlockBytes ? kLongBlocksPerWarp : 0;
}

}  // namespace

Result<std::unique_ptr<DeviceDecodeSlot>> DeviceDecodeSlot::create(int sharing) {
  MALLAT_ASSIGN_OR_RETURN(std::unique_ptr<entropy::cuda::TileDecoder> t1, entropy::cuda::TileDecoder::create());
  auto slot = std::unique_ptr<DeviceDecodeSlot>(new DeviceDecodeSlot(sharing, std::move(t1)));
  for (int i = 0; i < kSteps; ++i) {
    MALLAT_ASSIGN_OR_RETURN(dwt::cuda::Event e, dwt::cuda::make_event(true));
    slot->events_.push_back(std::move(e));
  }
  return slot;
}

// The batched blocks' pieces joined, and their segment lengths, into host
// memory by the pool's threads.
Status DeviceDecodeSlot::gather(const DecodeTile& tile, const DeviceDecodePlan& plan, ThreadPool& pool) {
  MALLAT_RETURN_IF_ERROR(bytes_host_.reserve(std::max<size_t>(plan.t1.bytes, 1)));
  MALLAT_RETURN_IF_ERROR(segments_host_.reserve(std::max<size_t>(plan.t1.segments, 1) * sizeof(uint32_t)));
  auto* bytes = reinterpret_cast<uint8_t*>(bytes_host_.data());
  auto* segments = reinterpret_cast<uint32_t*>(segments_host_.data());
  pool.parallel_for(static_cast<int64_t>(plan.batched.size()), [&](int64_t k) {
    const size_t i = static_cast<size_t>(k);
    entropy::gather_t1_decode_block(tile.blocks[plan.batched[i]].coded, plan.t1.jobs[i], bytes, segments);
  });
  return Status::Ok();
}

// Reconstruction into the planes, the inverse DWT into out_, and the
// output into the stored samples, queued behind Tier-1 on its stream.
Status DeviceDecodeSlot::inverse(const DecodeTile& tile, const DeviceDecodePlan& plan, cudaStream_t s) {
  auto* planes = reinterpret_cast<int32_t*>(planes_.data());
  auto* out = reinterpret_cast<int32_t*>(out_.data());
  for (size_t c : plan.zero_filled) {
    MALLAT_RETURN_IF_ERROR(check_cuda(
        cudaMemsetAsync(planes + plan.plane_offset[c], 0,
                        static_cast<size_t>(plan.plane_pitch[c] * tile.planes[c].height()) * sizeof(int32_t), s),
        "zeroing a plane"));
  }
  if (!plan.dequantise.empty()) {
    const size_t job_bytes = plan.dequantise.size() * sizeof(DequantiseJob);
    MALLAT_RETURN_IF_ERROR(jobs_.reserve(job_bytes));
    MALLAT_RETURN_IF_ERROR(check_cuda(
        cudaMemcpyAsync(jobs_.data(), plan.dequantise.data(), job_bytes, cudaMemcpyHostToDevice, s),
        "copying the reconstruction jobs"));
    MALLAT_RETURN_IF_ERROR(cuda::launch_dequantise(reinterpret_cast<const DequantiseJob*>(jobs_.data()),
                                                   plan.dequantise.size(), t1_->device_samples(),
                                                   t1_->device_results(), planes, s));
  }
  MALLAT_RETURN_IF_ERROR(transform_layout(dwt::Direction::kInverse, tile.planes, plan, planes, out,
                                          scratch_[0].data(), scratch_[1].data(), s));
  size_t first = 0;
  if (tile.colour_transform) {
    MALLAT_RETURN_IF_ERROR(cuda::launch_output_colour(plan.output.data(), out, stored_.data(), s));
    first = 3;
  }
  for (size_t c = first; c < plan.output.size(); ++c)
    MALLAT_RETURN_IF_ERROR(cuda::launch_output(plan.output[c], out, stored_.data(), s));
  return Status::Ok();
}

// The stored samples into the image's components, bands of rows on the
// pool; components no tile has written yet are allocated first,
// zero-filled (the CPU runner's output stage). With a raster
// (DecodeTile::raster: the image fits bytes, so every plane is stored a
// byte a sample at one size and place) they are interleaved into it
// instead.
void DeviceDecodeSlot::widen(DecodeTile& tile, const DeviceDecodePlan& plan, ThreadPool& pool) const {
  if (plan.interleaved) return;  // already in the raster (download)
  Image& image = *tile.image;
  constexpr int64_t kRows = 32;
  if (tile.raster) {
    const int n = static_cast<int>(plan.output.size());
    const OutputPlane& first = plan.output[0];
    const int64_t bands = (first.height + kRows - 1) / kRows;
    pool.parallel_for(bands, [&](int64_t k) {
      std::vector<const uint8_t*> rows(static_cast<size_t>(n));
      for (int64_t y = k * kRows; y < std::min(first.height, (k + 1) * kRows); ++y) {
        for (int c = 0; c < n; ++c) {
          const OutputPlane& p = plan.output[static_cast<size_t>(c)];
          rows[static_cast<size_t>(c)] =
              reinterpret_cast<const uint8_t*>(stored_host_.data() + p.stored + static_cast<uint64_t>(y * p.width));
        }
        uint8_t* to = tile.raster + ((plan.image_y[0] + y) * image.width() + plan.image_x[0]) * n;
        interleave_row(rows.data(), n, first.width, to);
      }
    });
    return;
  }
  std::vector<size_t> fresh;
  for (size_t c = 0; c < image.components.size(); ++c) {
    const Component& comp = image.components[c];
    if (comp.samples.empty() && comp.width > 0 && comp.height > 0) fresh.push_back(c);
  }
  pool.parallel_for(static_cast<int64_t>(fresh.size()), [&](int64_t i) {
    Component& comp = image.components[fresh[static_cast<size_t>(i)]];
    assign_large(comp.samples, static_cast<size_t>(comp.width * comp.height));
  });
  std::vector<std::pair<size_t, int64_t>> bands;  // (plane, first row)
  for (size_t c = 0; c < plan.output.size(); ++c) {
    for (int64_t y = 0; y < plan.output[c].height; y += kRows) bands.emplace_back(c, y);
  }
  pool.parallel_for(static_cast<int64_t>(bands.size()), [&](int64_t k) {
    const auto [c, y0] = bands[static_cast<size_t>(k)];
    const OutputPlane& p = plan.output[c];
    Component& comp = image.components[c];
    const int64_t y1 = std::min(p.height, y0 + kRows);
    for (int64_t y = y0; y < y1; ++y) {
      const std::byte* from = stored_host_.data() + p.stored + static_cast<uint64_t>(y * p.width * p.bytes);
      int32_t* to = comp.samples.data() + (plan.image_y[c] + y) * comp.width + plan.image_x[c];
      widen_on_host(from, p.width, comp.precision, comp.is_signed, to);
    }
  });
}

// The stored samples down, queued on `s` (the caller waits for them): an
// interleaved output (DeviceDecodePlan::interleaved) straight into the
// tile's rows of the raster, the pixels' bytes as they are (a raster in
// device memory, DecodeTile::device_raster, takes them without leaving the
// device); otherwise into stored_host_, for widen. Plain copies, staged by
// the driver where the memory is pageable: through the copier's pinned
// chunks (staged_copy.h) a lossy batch was slower.
Status DeviceDecodeSlot::download(const DecodeTile& tile, const DeviceDecodePlan& plan, cudaStream_t s) {
  if (plan.interleaved) {
    const OutputPlane& first = plan.output[0];
    const size_t n = plan.output.size();
    const size_t row = static_cast<size_t>(first.width) * n;
    const size_t image_row = static_cast<size_t>(tile.image->width()) * n;
    const bool on_device = tile.device_raster != nullptr;
    const size_t at = static_cast<size_t>(plan.image_y[0]) * image_row + static_cast<size_t>(plan.image_x[0]) * n;
    uint8_t* to = (on_device ? tile.device_raster : tile.raster) + at;
    MALLAT_RETURN_IF_ERROR(check_cuda(
        cudaMemcpy2DAsync(to, image_row, stored_.data(), row, row, static_cast<size_t>(first.height),
                          on_device ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost, s),
        "copying a tile's samples from the device into the raster"));
  } else {
    MALLAT_RETURN_IF_ERROR(check_cuda(
        cudaMemcpyAsync(stored_host_.data(), stored_.data(), plan.stored_size, cudaMemcpyDeviceToHost, s),
        "copying a tile's samples from the device"));
  }
  return Status::Ok();
}

Result<bool> DeviceDecodeSlot::run(DecodeTile& tile, ThreadPool& pool, DeviceDecodeTimes& times, DeviceSpan& span) {
  MALLAT_ASSIGN_OR_RETURN(const DeviceDecodePlan plan, plan_device_decode(tile));
  const cudaStream_t s = t1_->stream();
  // A run that failed may have left copies from the host buffers queued.
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaStreamSynchronize(s), "waiting for the device"));
  const bool marked = timeline::enabled();
  timeline::Clock::time_point since = marked ? timeline::Clock::now() : timeline::Clock::time_point{};
  const auto mark = [&](const char* what) {
    if (!marked) return;
    const timeline::Clock::time_point now = timeline::Clock::now();
    timeline::record(what, since, now, timeline::current_tag());
    since = now;
  };
  double gather_ms = 0, widen_ms = 0;
  {
    const entropy::cuda::StepClock clock(&gather_ms);
    MALLAT_RETURN_IF_ERROR(gather(tile, plan, pool));
  }
  mark("dd_gather");
  MALLAT_RETURN_IF_ERROR(planes_.reserve(plan.plane_samples * sizeof(int32_t)));
  MALLAT_RETURN_IF_ERROR(out_.reserve(plan.plane_samples * sizeof(int32_t)));
  for (auto& scratch : scratch_) MALLAT_RETURN_IF_ERROR(scratch.reserve(plan.scratch_samples * sizeof(int32_t)));
  MALLAT_RETURN_IF_ERROR(stored_.reserve(plan.stored_size));
  if (!plan.interleaved) MALLAT_RETURN_IF_ERROR(stored_host_.reserve(plan.stored_size));
  const size_t n = plan.batched.size();
  MALLAT_RETURN_IF_ERROR(results_host_.reserve(std::max<size_t>(n, 1) * sizeof(entropy::SharedT1DecodeResult)));
  const auto record = [&](Step step) {
    return check_cuda(cudaEventRecord(events_[step].get(), s), "cudaEventRecord");
  };
  const double started_ms = steady_ms();  // the stream idle: waited for above
  MALLAT_RETURN_IF_ERROR(record(kStart));
  if (n > 0) {
    MALLAT_RETURN_IF_ERROR(t1_->set_blocks_per_warp(decode_blocks_per_warp(sharing_, plan.t1.bytes, n)));
    // Bytes too many to be pinned (common/host_staging.h) go up through the
    // copier's pinned chunks (staged_copy.h), which with Tier-1's rule above
    // is what makes a lossless batch faster (the rule alone is not).
    entropy::cuda::TileDecoder::BytesCopy staged;
    if (plan.t1.bytes > kPinnedMostBytes) {
      staged = [&](uint8_t* to, cudaStream_t st) {
        return copier_.upload_bytes(bytes_host_.data(), reinterpret_cast<std::byte*>(to), plan.t1.bytes, st, pool);
      };
    }
    MALLAT_RETURN_IF_ERROR(t1_->upload(
        plan.t1.jobs, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes_host_.data()), plan.t1.bytes),
        std::span<const uint32_t>(reinterpret_cast<const uint32_t*>(segments_host_.data()), plan.t1.segments),
        plan.t1.samples, staged));
  }
  MALLAT_RETURN_IF_ERROR(record(kUploaded));
  mark("dd_upload");
  if (n > 0) MALLAT_RETURN_IF_ERROR(t1_->launch());
  MALLAT_RETURN_IF_ERROR(record(kDecoded));
  MALLAT_RETURN_IF_ERROR(inverse(tile, plan, s));
  MALLAT_RETURN_IF_ERROR(record(kInverted));
  if (n > 0) {
    MALLAT_RETURN_IF_ERROR(check_cuda(cudaMemcpyAsync(results_host_.data(), t1_->device_results(),
                                                      n * sizeof(entropy::SharedT1DecodeResult),
                                                      cudaMemcpyDeviceToHost, s),
                                      "copying the decoding results"));
  }
  MALLAT_RETURN_IF_ERROR(check_cuda(cudaStreamSynchronize(s), "decoding a tile on the device"));
  const auto* results = reinterpret_cast<const entropy::SharedT1DecodeResult*>(results_host_.data());
  for (size_t k = 0; k < n; ++k) {
    if (results[k].status != entropy::SharedT1DecodeStatus::kOk) return false;
  }
  // The samples only once every block decoded: a tile that goes back to
  // the CPU leaves nothing written to the raster.
  MALLAT_RETURN_IF_ERROR(download(tile, plan, s));
  MALLAT_RETURN_IF_ERROR(record(kDownloaded));
  MALLAT_RETURN_IF_ERROR(
      check_cuda(cudaEventSynchronize(events_[kDownloaded].get()), "copying a tile's samples from the device"));
  mark("dd_device");
  tile.raster_on_device = plan.interleaved && tile.device_raster;
  for (size_t k = 0; k < n; ++k) {
    DecodeBlock& b = tile.blocks[plan.batched[k]];
    b.info.lowest_plane = results[k].lowest_plane;
    b.info.ended_in_significance_pass = results[k].ended_in_significance_pass;
  }
  {
    const entropy::cuda::StepClock clock(&widen_ms);
    widen(tile, plan, pool);
  }
  mark("dd_widen");
  float ms[kSteps] = {};
  for (int i = kUploaded; i < kSteps; ++i) {
    MALLAT_RETURN_IF_ERROR(
        check_cuda(cudaEventElapsedTime(&ms[i], events_[i - 1].get(), events_[i].get()), "cudaEventElapsedTime"));
  }
  span = span_of_steps(started_ms, ms + kUploaded, kSteps - kUploaded, kDecoded - kUploaded);
  ++times.tiles;
  times.gather_ms += gather_ms;
  times.upload_ms += ms[kUploaded];
  times.tier1_ms += ms[kDecoded];
  times.inverse_ms += ms[kInverted];
  times.download_ms += ms[kDownloaded];
  times.widen_ms += widen_ms;
  return true;
}

}  // namespace mallat::codec
