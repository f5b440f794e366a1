#include "engine/placement.h"

#include <filesystem>
#include <system_error>

namespace mallat::engine {

bool whole_tiles(DeviceStages stages, bool batch) {
  if (stages == DeviceStages::kAll) return true;
  if (stages == DeviceStages::kTier1) return false;
  return batch && kBatchWholeTiles;
}

int encode_files_at_once(const EngineOptions& options) {
  if (options.files_at_once > 0) return options.files_at_once;
  return options.device != Device::kCpu && whole_tiles(options.device_stages, true) ? kWholeTileBatchFiles
                                                                                    : kDefaultBatchFiles;
}

int decode_files_at_once(const EngineOptions& options) {
  if (options.files_at_once > 0) return options.files_at_once;
  return options.device != Device::kCpu && whole_tiles(options.device_stages, true) ? kWholeTileDecodeBatchFiles
                                                                                    : kDefaultBatchFiles;
}

int files_ahead(const EngineOptions& options, bool whole_tiles_on_device) {
  if (options.files_ahead > 0) return options.files_ahead;
  return whole_tiles_on_device ? 4 : 2;
}

bool device_pays_for_one_item(const Workload& work, bool ht) {
  return !ht && work.expected_samples >= kOneItemDeviceSamples;
}

uint64_t device_room_samples(const Workload& work) { return work.streamed ? 0 : work.expected_samples; }

uint64_t expected_samples_of(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path file = path;
  if (fs::is_directory(file, ec)) {
    // A batch's folder: its first file by name, as a batch orders them.
    fs::path first;
    for (const fs::directory_entry& entry : fs::directory_iterator(file, ec)) {
      if (entry.is_regular_file(ec) && (first.empty() || entry.path() < first)) first = entry.path();
    }
    file = first;
  }
  if (file.empty() || !fs::is_regular_file(file, ec)) return 0;
  const uintmax_t bytes = fs::file_size(file, ec);
  return ec ? 0 : static_cast<uint64_t>(bytes);
}

entropy::DeviceCoderOptions device_coder_options(const EngineOptions& options, bool batch, int files_at_once) {
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
  switch (options.device_rounds) {
    case DeviceRounds::kDefault: break;
    case DeviceRounds::kWindow: coder.coalesce_close = Close::kWindow; break;
    case DeviceRounds::kSlotFree: coder.coalesce_close = Close::kSlotFree; break;
    case DeviceRounds::kDeviceIdle: coder.coalesce_close = Close::kDeviceIdle; break;
  }
  return coder;
}

}  // namespace mallat::engine
