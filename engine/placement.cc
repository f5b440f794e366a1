#include "engine/placement.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "codec/codestream/codestream_reader.h"
#include "codec/codestream/params_check.h"
#include "codec/encoder/ht_rate.h"
#include "codec/stages/device_rule.h"
#include "codec/jp2/jp2_boxes.h"
#include "common/memory_limit.h"
#include "common/thread_pool.h"
#include "io/mapped_file.h"

namespace mallat::engine {

bool whole_tiles(DeviceStages stages, bool batch) {
  if (stages == DeviceStages::kAll) return true;
  if (stages == DeviceStages::kTier1) return false;
  return batch && kBatchWholeTiles;
}

int engine_threads(const EngineOptions& options) {
  return options.threads > 0 ? options.threads : ThreadPool::hardware_threads();
}

BatchLanes cpu_batch_lanes(const EngineOptions& options, uint64_t item_samples) {
  const int threads = engine_threads(options);
  BatchLanes lanes;
  if (options.files_at_once > 0) {
    lanes.lanes = options.files_at_once;
  } else {
    lanes.lanes = threads;
    if (item_samples > 0) {
      const double budget = kBatchMemoryShare * static_cast<double>(default_memory_limit());
      const double item = static_cast<double>(item_samples) * static_cast<double>(kBatchItemBytesPerSample);
      lanes.lanes = static_cast<int>(std::clamp(budget / item, 1.0, static_cast<double>(threads)));
    }
  }
  lanes.threads_each = std::max(1, threads / lanes.lanes);
  return lanes;
}

int whole_tile_lane_threads(const EngineOptions& options, int lanes, uint64_t items) {
  uint64_t sharing = static_cast<uint64_t>(std::max(1, lanes));
  if (items > 0) sharing = std::min(sharing, items);
  return std::max(1, engine_threads(options) / static_cast<int>(sharing));
}

int encode_files_at_once(const EngineOptions& options) {
  if (options.files_at_once > 0) return options.files_at_once;
  return options.device != Device::kCpu && whole_tiles(options.device_stages, true) ? kWholeTileBatchFiles
                                                                                    : kDefaultBatchFiles;
}

int decode_files_at_once(const EngineOptions& options, uint64_t item_samples) {
  if (options.files_at_once > 0) return options.files_at_once;
  if (options.device == Device::kCpu || !whole_tiles(options.device_stages, true)) return kDefaultBatchFiles;
  return small_decode_items(options.device_stages, Workload{true, item_samples}) ? kSmallItemDecodeFiles
                                                                                 : kWholeTileDecodeBatchFiles;
}

bool small_decode_items(DeviceStages stages, const Workload& work) {
  return stages == DeviceStages::kDefault && work.batch && work.expected_samples > 0 &&
         work.expected_samples < kSmallItemDecodeSamples;
}

bool decode_whole_tiles(DeviceStages stages, const Workload& work) {
  return !small_decode_items(stages, work) && whole_tiles(stages, work.batch);
}

HtTarget ht_target_of(const codec::EncodeOptions& options) {
  if (!options.ht_under_target()) return HtTarget::kNone;
  const bool one_tile = options.tile_width == 0 && options.tile_height == 0;
  const std::string problem = codec::device_codes_again_problem(
      codec::ht_rate_by_estimates(options), options.ht_rate == codec::EncodeOptions::HtRate::kEstimatedSteps,
      one_tile ? 1 : 0);
  return problem.empty() ? HtTarget::kKeptWhole : HtTarget::kCodedAgainOnHost;
}

bool device_pays_for_batch(const Workload& work, bool ht, bool decode, HtTarget target) {
  if (target == HtTarget::kCodedAgainOnHost) return false;
  if (target == HtTarget::kKeptWhole) {
    if (work.items == 0 || work.expected_samples == 0) return false;
    return work.expected_samples >= (kHtTargetEncodeBatchDeviceSamples + work.items - 1) / work.items;
  }
  if (!ht && !decode && work.expected_samples > 0 && work.expected_samples < kPart1EncodeItemDeviceSamples)
    return false;
  if (!ht || work.items == 0 || work.expected_samples == 0) return true;
  const uint64_t threshold = decode ? kHtDecodeBatchDeviceSamples : kHtEncodeBatchDeviceSamples;
  // items * samples >= threshold, without overflow.
  return work.expected_samples >= (threshold + work.items - 1) / work.items;
}

bool device_asked(const EngineOptions& options) {
  return options.device_share >= 0 || options.device_stages != DeviceStages::kDefault ||
         options.device_for_one_item;
}

int files_ahead(const EngineOptions& options, bool whole_tiles_on_device) {
  if (options.files_ahead > 0) return options.files_ahead;
  return whole_tiles_on_device ? 4 : 2;
}

bool device_pays_for_one_item(const Workload& work, bool ht) {
  return !ht && work.expected_samples >= kOneItemDeviceSamples;
}

bool one_item_whole_on_device(const EngineOptions& options, const Workload& work, bool ht, bool whole) {
  if (device_asked(options) || work.batch || work.strips_asked || ht || work.irreversible || !whole) return false;
  const uint64_t samples = work.expected_samples;
  if (samples < kOneItemDeviceSamples || samples > kOneItemWholeSamples) return false;
  const double budget = kBatchMemoryShare * static_cast<double>(default_memory_limit());
  return static_cast<double>(samples) * static_cast<double>(kOneItemWholeBytesPerSample) <= budget;
}

bool decodes_whole_image(const codec::DecodeOptions& options) {
  return options.reduce == 0 && options.layers == 0 && options.tile < 0 && !options.region &&
         options.components.empty();
}

uint64_t device_room_samples(const Workload& work) { return work.streamed ? 0 : work.expected_samples; }

namespace {

// `path`, or for a folder its first file by name, as a batch orders them;
// empty where there is no regular file.
std::filesystem::path first_file_of(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path file = path;
  if (fs::is_directory(file, ec)) {
    fs::path first;
    for (const fs::directory_entry& entry : fs::directory_iterator(file, ec)) {
      if (entry.is_regular_file(ec) && (first.empty() || entry.path() < first)) first = entry.path();
    }
    file = first;
  }
  if (file.empty() || !fs::is_regular_file(file, ec)) return {};
  return file;
}

}  // namespace

uint64_t expected_samples_of(const std::string& path) {
  const std::filesystem::path file = first_file_of(path);
  if (file.empty()) return 0;
  std::error_code ec;
  const uintmax_t bytes = std::filesystem::file_size(file, ec);
  return ec ? 0 : static_cast<uint64_t>(bytes);
}

DecodedItem decoded_item_of(std::span<const uint8_t> file) {
  const Result<std::span<const uint8_t>> stream = codec::find_codestream(file);
  if (!stream.ok()) return {};
  const Result<codec::MainHeader> main = codec::parse_main_header(*stream);
  if (!main.ok()) return {};
  return {codec::total_samples(main->siz), main->cod.component.style.ht, !main->cod.component.reversible};
}

DecodedItem decoded_item_of(const std::string& path) {
  const std::filesystem::path file = first_file_of(path);
  if (file.empty()) return {};
  const Result<io::MappedFile> mapped = io::map_file(file);
  return mapped.ok() ? decoded_item_of(mapped->bytes()) : DecodedItem{};
}

entropy::DeviceCoderOptions device_coder_options(const EngineOptions& options, bool batch, int files_at_once,
                                                 bool small_items) {
  using Close = entropy::DeviceCoderOptions::RoundClose;
  entropy::DeviceCoderOptions coder;
  coder.wait_for_device = options.wait_for_device;
  if (options.device_share >= 0 || batch) {
    coder.device_share = options.device_share >= 0 ? options.device_share : kBatchDeviceShare;
    coder.adapt = false;
  }
  // One item's calls come one at a time (a streamed file's rows of blocks):
  // a round that waited for more callers would wait its whole window.
  coder.coalesce_callers = batch ? files_at_once : 1;
  if (batch) {
    coder.device_slots = kBatchDeviceSlots;
    coder.coalesce_close = Close::kSlotFree;
  }
  if (options.device_slots > 0) coder.device_slots = options.device_slots;
  if (small_items) coder.coalesce_close = Close::kDeviceIdle;
  switch (options.device_rounds) {
    case DeviceRounds::kDefault: break;
    case DeviceRounds::kWindow: coder.coalesce_close = Close::kWindow; break;
    case DeviceRounds::kSlotFree: coder.coalesce_close = Close::kSlotFree; break;
    case DeviceRounds::kDeviceIdle: coder.coalesce_close = Close::kDeviceIdle; break;
  }
  return coder;
}

}  // namespace mallat::engine
