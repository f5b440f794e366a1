// mallat::Engine (codec/api/engine.h): the placement (placement.h) decided
// once per workload, lanes made once and reused (lanes.h), batches through
// the pipeline (batch_pipeline.h), each call through the codec's entry
// points over the lane's resources (codec/encoder/encode_call.h,
// codec/decoder/decode_call.h).
#include "codec/api/engine.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <utility>

#include "codec/decoder/decode_call.h"
#include "codec/encoder/encode_call.h"
#include "codec/encoder/kept_indices.h"
#include "codec/stages/device_raster.h"
#include "codec/stages/device_rule.h"
#include "codec/stages/device_tile_stages.h"
#include "common/timeline.h"
#include "engine/batch_pipeline.h"
#include "engine/engine_impl.h"
#include "engine/lanes.h"
#include "engine/placement.h"
#include "entropy/hybrid/hybrid_block_encoder.h"
#include "io/file.h"
#include "io/image_io.h"

namespace mallat {
namespace {

// What engines with keep_device_until_exit started: never destroyed, so
// that a process leaving with std::_Exit neither tears CUDA down nor waits
// for a start-up.
struct KeptDevices {
  std::mutex mutex;
  std::vector<std::shared_ptr<void>> kept;
  std::atomic<bool> any{false};
};
KeptDevices& kept_devices() {
  static auto* kept = new KeptDevices;
  return *kept;
}

dwt::BackendKind backend_kind(Device device) {
  switch (device) {
    case Device::kCpu: return dwt::BackendKind::kCpu;
    case Device::kCuda: return dwt::BackendKind::kCuda;
    case Device::kAuto: return dwt::BackendKind::kAuto;
  }
  return dwt::BackendKind::kCpu;
}

uint64_t samples_of(const Image& image) {
  uint64_t samples = 0;
  for (const Component& c : image.components)
    samples += static_cast<uint64_t>(c.width) * static_cast<uint64_t>(c.height);
  return samples;
}

// A batch not prepared, for its placement: its items, about the samples of
// its first (0: unknown) and, for a decode, whether that is HT-coded.
Workload batch_work(std::span<const EncodeItem> items) {
  Workload work{true, 0, false, items.size()};
  if (!items.empty())
    work.expected_samples = items[0].image ? samples_of(*items[0].image) : engine::expected_samples_of(items[0].path);
  return work;
}
Workload batch_work(std::span<const DecodeItem> items) {
  Workload work{true, 0, false, items.size()};
  if (items.empty()) return work;
  const engine::DecodedItem first = !items[0].data.empty() ? engine::decoded_item_of(items[0].data)
                                                           : engine::decoded_item_of(items[0].path);
  work.expected_samples = first.samples;
  work.ht = first.ht;
  work.irreversible = first.irreversible;
  return work;
}

Status with_path(const Status& status, const std::string& path) {
  return status.ok() || path.empty() ? status : status.with_context(path);
}

// A batch that cannot start (its device asked for and missing): every item
// fails with why, each finished in order.
template <class Results, class Hooks>
Results fail_every(const Status& why, Results& results, const Hooks& hooks) {
  for (size_t i = 0; i < results.size(); ++i) {
    results[i].status = why;
    if (hooks.done) hooks.done(i, results[i]);
  }
  return std::move(results);
}

// A batch's write and finish steps, the same for both directions: the
// caller's write hook on the item's result (not for an item its stream hook
// wrote), then its status and the done hook, in order.
template <class Results, class Hooks>
void hook_steps(Results& results, const Hooks& hooks, engine::PipelineSteps& steps) {
  steps.write = [&](size_t i) {
    return hooks.write && !results[i].streamed ? hooks.write(i, results[i]) : Status::Ok();
  };
  steps.finished = [&](size_t i, const Status& status) {
    results[i].status = status;
    if (hooks.done) hooks.done(i, results[i]);
  };
}

}  // namespace

Engine::Impl::Impl(EngineOptions options) : options_(std::move(options)) {}

std::string Engine::Impl::dwt_name() {
  for (Side* side : {&encode_, &decode_}) {
    const std::vector<engine::Lane*> lanes = all_lanes(*side);
    if (!lanes.empty()) return lanes[0]->resources.dwt->name();
  }
  return "";
}

engine::LaneSet& Engine::Impl::lanes_of(Side& side, int threads) {
  std::unique_ptr<engine::LaneSet>& set = side.lanes[threads];
  if (!set) set = std::make_unique<engine::LaneSet>();
  return *set;
}

std::vector<engine::Lane*> Engine::Impl::all_lanes(Side& side) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<engine::Lane*> all;
  for (auto& [threads, set] : side.lanes) {
    const std::vector<engine::Lane*> some = set->all();
    all.insert(all.end(), some.begin(), some.end());
  }
  return all;
}

void Engine::Impl::keep(std::shared_ptr<void> device) {
  started_ = true;
  if (!options_.keep_device_until_exit || !device) return;
  KeptDevices& kept = kept_devices();
  std::lock_guard<std::mutex> lock(kept.mutex);
  kept.kept.push_back(std::move(device));
  kept.any = true;
}

Result<std::unique_ptr<engine::Lane>> Engine::Impl::make_lane(Side& side, int threads) {
  auto lane = std::make_unique<engine::Lane>();
  lane->pool = std::make_unique<ThreadPool>(threads);
  lane->times = std::make_unique<codec::StageTimes>();
  MALLAT_ASSIGN_OR_RETURN(std::unique_ptr<dwt::Backend> backend,
                          dwt::make_backend(backend_kind(options_.dwt), threads));
  lane->resources.dwt = std::move(backend);
  lane->resources.pool = lane->pool.get();
  lane->resources.release = &lane->release;
  share_with(side, *lane);
  if (&side == &encode_) lane->resources.kept_indices = std::make_shared<codec::KeptIndexMemory>();
  if (&side == &encode_ && !lane->resources.block_encoder) {
    // The CUDA DWT (EngineOptions::dwt) brings Tier-1 to the device too.
    MALLAT_ASSIGN_OR_RETURN(lane->resources.block_encoder,
                            codec::block_encoder_for(lane->resources, *lane->resources.dwt));
    if (lane->resources.block_encoder) ++coders_made_;
  }
  ++lanes_made_;
  ++pools_made_;
  return lane;
}

void Engine::Impl::share_with(const Side& side, engine::Lane& lane) const {
  if (&side == &encode_) {
    if (encoder_) lane.resources.block_encoder = encoder_;
  } else {
    lane.resources.block_decoder = decoder_;
  }
  lane.resources.device_tiles = side.placement.whole_tiles ? side.tiles : nullptr;
}

Result<engine::LaneSet*> Engine::Impl::grow(Side& side, int threads, int lanes) {
  engine::LaneSet* set;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    set = &lanes_of(side, threads);
  }
  MALLAT_RETURN_IF_ERROR(set->grow_to(lanes, [&]() { return make_lane(side, threads); }));
  return set;
}

void Engine::Impl::start_tiles(Side& side, bool batch, int most, codec::DeviceTileUse use) {
  if (side.tiles) return;
  if (batch) {
    const int slots = options_.device_tile_slots > 0 ? options_.device_tile_slots
                                                     : std::min(std::max(side.placement.files_at_once, 1), most);
    side.tiles = codec::start_device_tile_context(slots, slots, use);
  } else {
    side.tiles = codec::start_device_tile_context(1, 1, use);
  }
  ++contexts_made_;
  keep(side.tiles);
}

template <class Coder, class Make>
Status Engine::Impl::start_coder(bool start, std::shared_ptr<Coder>& coder, const Make& make) {
  if (options_.device == Device::kCpu || coder) return Status::Ok();
  // kCuda in a build without CUDA is an error, started or not; kAuto then
  // stays on the CPU, as it does where the coder cannot be made.
  const bool asked_cuda = options_.device == Device::kCuda;
  if (!start) {
    const Status built = entropy::device_block_encoder_built();
    return asked_cuda ? built.with_context("--device cuda") : Status::Ok();
  }
  auto made = make();
  if (!made.ok()) return asked_cuda ? made.status().with_context("--device cuda") : Status::Ok();
  coder = std::move(made).value();
  ++coders_made_;
  keep(coder);
  return Status::Ok();
}

Result<Placement> Engine::Impl::prepare_encode(const codec::EncodeOptions& options, const Workload& work) {
  std::lock_guard<std::mutex> lock(mutex_);
  Placement placement;
  placement.files_at_once = engine::encode_files_at_once(options_);
  entropy::DeviceCoderOptions coder =
      engine::device_coder_options(options_, work.batch, placement.files_at_once);
  coder.expected_samples = engine::device_room_samples(work);
  // A batch whose every tile goes to the device whole leaves the hybrid
  // coder nothing to code, so its start-up makes no room for a file's
  // blocks.
  const bool runner_takes_tiles = codec::device_encode_options_problem(options.style, !options.roi.empty()).empty();
  if (work.batch && engine::whole_tiles(options_.device_stages, true) && runner_takes_tiles) {
    coder.expected_samples = 0;
  }
  // One image too small to gain what CUDA's start-up costs the CPU stages
  // runs on the CPU alone, and so does a batch too little for the device
  // (engine/placement.h); options that name the device's part (a share,
  // the stages: device_asked) ask for it whatever the size.
  // One large image goes whole only where the runner takes its tiles (an
  // ROI's do not: read whole, they would be coded on the CPU runner).
  const bool one_whole = engine::one_item_whole_on_device(options_, work, options.style.ht, runner_takes_tiles);
  const bool start =
      work.batch ? engine::device_asked(options_) ||
                       engine::device_pays_for_batch(work, options.style.ht, false, engine::ht_target_of(options))
                 : engine::device_asked(options_) || engine::device_pays_for_one_item(work, options.style.ht);
  MALLAT_RETURN_IF_ERROR(start_coder(start, encoder_, [&] { return entropy::make_device_block_encoder(coder); }));
  placement.device = encoder_ != nullptr;
  placement.whole_tiles = placement.device && (engine::whole_tiles(options_.device_stages, work.batch) || one_whole);
  place_lanes(placement, work);
  placement.files_ahead = engine::files_ahead(options_, placement.whole_tiles);
  encode_.placement = placement;
  encode_.prepared = true;
  if (placement.whole_tiles) start_tiles(encode_, work.batch, engine::kWholeTileSlots, codec::DeviceTileUse::kEncode);
  share_with_all(encode_);
  return placement;
}

Result<Placement> Engine::Impl::prepare_decode(const codec::DecodeOptions& decode, const Workload& work) {
  std::lock_guard<std::mutex> lock(mutex_);
  Placement placement;
  placement.files_at_once = engine::decode_files_at_once(options_, work.batch ? work.expected_samples : 0);
  const entropy::DeviceCoderOptions coder = engine::device_coder_options(
      options_, work.batch, placement.files_at_once, engine::small_decode_items(options_.device_stages, work));
  // One file is decoded on the CPU alone unless the options name the
  // device's part (device_asked: the stages, a share, device_for_one_item):
  // CUDA's start-up costs it more than the device's share saves; so is a
  // batch too little for the device (engine/placement.h).
  // One large Part 1 image decoded whole goes to the device whole
  // (one_item_whole_on_device).
  const bool one_whole =
      engine::one_item_whole_on_device(options_, work, work.ht, engine::decodes_whole_image(decode));
  const bool start = engine::device_asked(options_) || one_whole ||
                     (work.batch && engine::device_pays_for_batch(work, work.ht, true));
  MALLAT_RETURN_IF_ERROR(start_coder(start, decoder_, [&] { return entropy::make_device_block_decoder(coder); }));
  placement.device = decoder_ != nullptr;
  placement.whole_tiles =
      placement.device && (engine::decode_whole_tiles(options_.device_stages, work) || one_whole);
  place_lanes(placement, work);
  placement.files_ahead = engine::files_ahead(options_, false);
  decode_.placement = placement;
  decode_.prepared = true;
  if (placement.whole_tiles)
    start_tiles(decode_, work.batch, engine::kWholeTileDecodeSlots, codec::DeviceTileUse::kDecode);
  share_with_all(decode_);
  return placement;
}

codec::CallResources Engine::Impl::resources_for(engine::Lane& lane, bool time_stages) const {
  codec::CallResources resources = lane.resources;
  if (time_stages || options_.time_stages || timeline::enabled()) {
    *lane.times = codec::StageTimes{};
    resources.stage_times = lane.times.get();
  }
  return resources;
}

void Engine::Impl::place_lanes(Placement& placement, const Workload& work) const {
  placement.threads_per_lane = engine::engine_threads(options_);
  if (placement.device) {
    if (placement.whole_tiles && work.batch)
      placement.threads_per_lane = engine::whole_tile_lane_threads(options_, placement.files_at_once, work.items);
    return;
  }
  const engine::BatchLanes lanes = engine::cpu_batch_lanes(options_, work.expected_samples);
  placement.files_at_once = lanes.lanes;
  placement.threads_per_lane = lanes.threads_each;
}

void Engine::Impl::share_with_all(Side& side) {
  for (auto& [threads, set] : side.lanes)
    for (engine::Lane* lane : set->all()) share_with(side, *lane);
}

Result<engine::LaneSet::Held> Engine::Impl::lane_for_one(Side& side) {
  MALLAT_ASSIGN_OR_RETURN(engine::LaneSet* set, grow(side, engine::engine_threads(options_), 1));
  return set->acquire();
}

Result<std::vector<uint8_t>> Engine::Impl::encode(const Image& image, const codec::EncodeOptions& options,
                                                  codec::EncodeReport* report) {
  if (!encode_.prepared) MALLAT_RETURN_IF_ERROR(prepare_encode(options, {false, samples_of(image)}).status());
  MALLAT_ASSIGN_OR_RETURN(engine::LaneSet::Held held, lane_for_one(encode_));
  const codec::CallResources resources = resources_for(held.lane(), options.time_stages);
  Result<std::vector<uint8_t>> bytes = codec::encode(image, options, resources, report);
  if (report && resources.stage_times) report->stage_times = *resources.stage_times;
  return bytes;
}

Status Engine::Impl::encode_streamed(const codec::RowSource& source, const codec::EncodeOptions& options,
                                     const codec::FileSink& sink, codec::EncodeReport* report,
                                     const codec::FileSizeHint* size_hint) {
  if (!encode_.prepared)
    MALLAT_RETURN_IF_ERROR(prepare_encode(options, {false, samples_of(source.layout), true}).status());
  MALLAT_ASSIGN_OR_RETURN(engine::LaneSet::Held held, lane_for_one(encode_));
  const codec::CallResources resources = resources_for(held.lane(), options.time_stages);
  const Status status = codec::encode_streamed(source, options, resources, sink, report, size_hint);
  if (report && resources.stage_times) report->stage_times = *resources.stage_times;
  return status;
}

Result<Image> Engine::Impl::decode(std::span<const uint8_t> data, const codec::DecodeOptions& options,
                                   codec::DecodeReport* report, std::vector<uint8_t>* raster) {
  if (!decode_.prepared) MALLAT_RETURN_IF_ERROR(prepare_decode(options, {false, 0}).status());
  MALLAT_ASSIGN_OR_RETURN(engine::LaneSet::Held held, lane_for_one(decode_));
  const codec::CallResources resources = resources_for(held.lane(), options.time_stages);
  Result<Image> image = codec::decode(data, options, resources, report, raster);
  if (report && resources.stage_times) report->stage_times = *resources.stage_times;
  return image;
}

Result<bool> Engine::Impl::decode_streamed(std::span<const uint8_t> data, const codec::DecodeOptions& options,
                                           codec::RowSink& sink, codec::DecodeReport* report) {
  // Unprepared, its size is not known before its headers are read: small.
  if (!decode_.prepared) MALLAT_RETURN_IF_ERROR(prepare_decode(options, {false, 0, true}).status());
  MALLAT_ASSIGN_OR_RETURN(engine::LaneSet::Held held, lane_for_one(decode_));
  const codec::CallResources resources = resources_for(held.lane(), false);
  // An image placed on the device whole (one_item_whole_on_device) keeps
  // its raster there and comes down strip by strip.
  if (decode_.placement.whole_tiles) {
    Result<bool> sent = codec::decode_from_device_raster(data, options, resources, sink, report);
    if (!sent.ok() || *sent) return sent;
  }
  return codec::decode_streamed(data, options, resources, sink, report);
}

std::vector<EncodeResult> Engine::Impl::encode_batch(std::span<const EncodeItem> items,
                                                     const codec::EncodeOptions& options, const EncodeHooks& hooks) {
  std::vector<EncodeResult> results(items.size());
  Status ready = Status::Ok();
  if (!encode_.prepared) ready = prepare_encode(options, batch_work(items)).status();
  Result<engine::LaneSet*> lanes =
      ready.ok() ? grow(encode_, encode_.placement.threads_per_lane, encode_.placement.files_at_once)
                 : Result<engine::LaneSet*>(ready);
  if (!lanes.ok()) return fail_every(lanes.status(), results, hooks);
  std::vector<Image> images(items.size());
  // Items the caller encodes strip by strip (EncodeHooks::streams) are
  // never read whole.
  const bool may_stream = hooks.streams && hooks.stream && !encode_.placement.device;
  engine::PipelineSteps steps;
  steps.read = [&](size_t i) -> Status {
    if (items[i].image) return Status::Ok();
    if (may_stream && hooks.streams(i)) {
      results[i].streamed = true;
      return Status::Ok();
    }
    // Tiles the device takes whole upload the samples at their stored
    // width: read so, they are never widened on the host.
    const bool stored = encode_.placement.whole_tiles;
    const auto& read = stored && hooks.read_stored ? hooks.read_stored : hooks.read;
    Result<Image> image =
        read ? read(i)
             : io::read_image(items[i].path, 0, stored ? io::SampleForm::kStoredWhereCheap : io::SampleForm::kInt32);
    if (!image.ok()) return with_path(image.status(), read ? "" : items[i].path);
    images[i] = std::move(*image);
    return Status::Ok();
  };
  steps.code = [&](size_t i, engine::Lane& lane) -> Status {
    const codec::CallResources resources = resources_for(lane, options.time_stages);
    if (results[i].streamed) {
      return hooks.stream(i, [&](const codec::RowSource& source, const codec::FileSink& sink,
                                 const codec::FileSizeHint* size_hint) {
        return codec::encode_streamed(source, options, resources, sink, &results[i].report, size_hint);
      });
    }
    const Image& image = items[i].image ? *items[i].image : images[i];
    Result<std::vector<uint8_t>> bytes = codec::encode(image, options, resources, &results[i].report);
    if (resources.stage_times) results[i].report.stage_times = *resources.stage_times;
    images[i] = Image();
    if (!bytes.ok()) return with_path(bytes.status(), items[i].path);
    results[i].bytes = std::move(*bytes);
    return Status::Ok();
  };
  hook_steps(results, hooks, steps);
  steps.release = [&](size_t i) { images[i] = Image(); };
  engine::run_pipeline(items.size(), **lanes, encode_.placement.files_at_once, encode_.placement.files_ahead, steps);
  return results;
}

std::vector<DecodeResult> Engine::Impl::decode_batch(std::span<const DecodeItem> items,
                                                     const codec::DecodeOptions& options, const DecodeHooks& hooks) {
  std::vector<DecodeResult> results(items.size());
  Status ready = Status::Ok();
  if (!decode_.prepared) ready = prepare_decode(options, batch_work(items)).status();
  Result<engine::LaneSet*> lanes =
      ready.ok() ? grow(decode_, decode_.placement.threads_per_lane, decode_.placement.files_at_once)
                 : Result<engine::LaneSet*>(ready);
  if (!lanes.ok()) return fail_every(lanes.status(), results, hooks);
  std::vector<std::vector<uint8_t>> data(items.size());
  engine::PipelineSteps steps;
  steps.read = [&](size_t i) -> Status {
    if (!items[i].data.empty()) return Status::Ok();
    Result<std::vector<uint8_t>> bytes = hooks.read ? hooks.read(i) : io::read_file(items[i].path);
    if (!bytes.ok()) return bytes.status();
    data[i] = std::move(*bytes);
    return Status::Ok();
  };
  steps.code = [&](size_t i, engine::Lane& lane) -> Status {
    const std::span<const uint8_t> bytes = !items[i].data.empty() ? items[i].data : std::span<const uint8_t>(data[i]);
    codec::DecodeOptions own = options;
    if (!items[i].apply_jp2_header) own.apply_jp2_header = false;
    codec::CallResources resources = resources_for(lane, options.time_stages);
    DecodeResult& result = results[i];
    if (hooks.stream && !decode_.placement.device && !items[i].raster_on_device) {
      const DecodeHooks::StreamedDecode decode = [&](codec::RowSink& sink) {
        return codec::decode_streamed(bytes, own, resources, sink, &result.report);
      };
      if (hooks.stream(i, bytes, decode)) {
        result.streamed = true;
        data[i] = std::vector<uint8_t>();
        return Status::Ok();
      }
      result.report = codec::DecodeReport();  // the whole decode's own
    }
    if (items[i].raster && items[i].raster_on_device) {
      MALLAT_RETURN_IF_ERROR(codec::device_raster_ready());
      resources.device_raster = &result.device_raster;
    } else if (items[i].raster) {
      result.raster = rasters_.take();
    }
    Result<Image> image =
        codec::decode(bytes, own, resources, &result.report, items[i].raster ? &result.raster : nullptr);
    if (resources.stage_times) result.report.stage_times = *resources.stage_times;
    // A fresh vector, not `= {}`, which empties it and keeps its memory.
    data[i] = std::vector<uint8_t>();
    if (!image.ok()) return with_path(image.status(), items[i].path);
    result.image = std::move(*image);
    return Status::Ok();
  };
  hook_steps(results, hooks, steps);
  // A raster that `write` leaves in its result has been written out: its
  // memory goes to a later item (at most one per item in flight).
  if (hooks.write) {
    steps.write = [&](size_t i) {
      if (results[i].streamed) return Status::Ok();
      Status written = hooks.write(i, results[i]);
      rasters_.give(std::move(results[i].raster), static_cast<size_t>(decode_.placement.files_at_once));
      results[i].raster = std::vector<uint8_t>();
      return written;
    };
  }
  steps.release = [&](size_t i) { data[i] = std::vector<uint8_t>(); };
  engine::run_pipeline(items.size(), **lanes, decode_.placement.files_at_once, decode_.placement.files_ahead, steps);
  rasters_.clear();
  return results;
}

Engine::Engine(EngineOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
Engine::~Engine() = default;

const EngineOptions& Engine::options() const { return impl_->options(); }

Result<Placement> Engine::prepare_encode(const codec::EncodeOptions& options, const Workload& work) {
  return impl_->prepare_encode(options, work);
}
Result<Placement> Engine::prepare_decode(const codec::DecodeOptions& options, const Workload& work) {
  return impl_->prepare_decode(options, work);
}
Result<std::vector<uint8_t>> Engine::encode(const Image& image, const codec::EncodeOptions& options,
                                            codec::EncodeReport* report) {
  return impl_->encode(image, options, report);
}
Status Engine::encode_streamed(const codec::RowSource& source, const codec::EncodeOptions& options,
                               const codec::FileSink& sink, codec::EncodeReport* report,
                               const codec::FileSizeHint* size_hint) {
  return impl_->encode_streamed(source, options, sink, report, size_hint);
}
Result<Image> Engine::decode(std::span<const uint8_t> data, const codec::DecodeOptions& options,
                             codec::DecodeReport* report, std::vector<uint8_t>* raster) {
  return impl_->decode(data, options, report, raster);
}
Result<bool> Engine::decode_streamed(std::span<const uint8_t> data, const codec::DecodeOptions& options,
                                     codec::RowSink& sink, codec::DecodeReport* report) {
  return impl_->decode_streamed(data, options, sink, report);
}
std::vector<EncodeResult> Engine::encode_batch(std::span<const EncodeItem> items, const codec::EncodeOptions& options,
                                               const EncodeHooks& hooks) {
  return impl_->encode_batch(items, options, hooks);
}
std::vector<DecodeResult> Engine::decode_batch(std::span<const DecodeItem> items, const codec::DecodeOptions& options,
                                               const DecodeHooks& hooks) {
  return impl_->decode_batch(items, options, hooks);
}
EngineCounts Engine::counts() const { return impl_->counts(); }
Status Engine::encode_device_status() const {
  return impl_->encoder() ? impl_->encoder()->device_status() : Status::Ok();
}
Status Engine::decode_device_status() const {
  return impl_->decoder() ? impl_->decoder()->device_status() : Status::Ok();
}
std::string Engine::dwt_name() const { return impl_->dwt_name(); }
std::string Engine::block_encoder_name() const { return impl_->encoder() ? impl_->encoder()->name() : ""; }
std::string Engine::block_decoder_name() const { return impl_->decoder() ? impl_->decoder()->name() : ""; }
bool Engine::device_started() const { return impl_->started(); }
bool Engine::device_started_in_process() {
  return kept_devices().any || entropy::device_starts_in_flight() > 0;
}

}  // namespace mallat
