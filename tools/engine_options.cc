#include "tools/engine_options.h"

#include <vector>

#include "tools/option_values.h"

namespace mallat::tools {

Status parse_device(const std::string& value, Device* device) {
  dwt::BackendKind kind = dwt::BackendKind::kCpu;
  MALLAT_RETURN_IF_ERROR(parse_backend(value, &kind));
  // "reference" (the DWT's reference backend's name) is taken as auto: the
  // command's DWT runs on the CPU whatever --device says.
  *device = kind == dwt::BackendKind::kCpu ? Device::kCpu : kind == dwt::BackendKind::kCuda ? Device::kCuda
                                                                                          : Device::kAuto;
  return Status::Ok();
}

Status parse_device_share(const std::string& value, EngineOptions* engine) {
  std::vector<double> one;
  if (!parse_doubles(value, &one) || one.size() != 1 || !(one[0] >= 0 && one[0] <= 1))
    return invalid_argument("--device-share must be a number from 0 to 1, got '" + value + "'");
  engine->device_share = one[0];
  return Status::Ok();
}

Status parse_device_slots(const std::string& value, EngineOptions* engine) {
  if (value.size() != 1 || value[0] < '1' || value[0] > '4')
    return invalid_argument("--device-slots must be a whole number from 1 to 4, got '" + value + "'");
  engine->device_slots = value[0] - '0';
  return Status::Ok();
}

Status parse_device_tile_slots(const std::string& value, EngineOptions* engine) {
  int64_t n = 0;
  if (!parse_int(value, 1, 16, &n))
    return invalid_argument("--device-tile-slots must be a whole number from 1 to 16, got '" + value + "'");
  engine->device_tile_slots = static_cast<int>(n);
  return Status::Ok();
}

Status parse_device_rounds(const std::string& value, EngineOptions* engine) {
  if (value == "window") {
    engine->device_rounds = DeviceRounds::kWindow;
  } else if (value == "free") {
    engine->device_rounds = DeviceRounds::kSlotFree;
  } else if (value == "idle") {
    engine->device_rounds = DeviceRounds::kDeviceIdle;
  } else {
    return invalid_argument("--device-rounds must be 'window', 'free' or 'idle', got '" + value + "'");
  }
  return Status::Ok();
}

Status parse_device_stages(const std::string& value, EngineOptions* engine) {
  if (value == "all") {
    engine->device_stages = DeviceStages::kAll;
  } else if (value == "tier1") {
    engine->device_stages = DeviceStages::kTier1;
  } else {
    return invalid_argument("--device-stages must be 'all' or 'tier1', got '" + value + "'");
  }
  return Status::Ok();
}

Status parse_batch_files(const std::string& value, int* files) {
  size_t used = 0;
  int k = 0;
  try {
    k = std::stoi(value, &used);
  } catch (...) {
    used = 0;
  }
  if (used == 0 || used != value.size() || k < 1 || k > 256)
    return invalid_argument("--batch-files must be a whole number from 1 to 256, got '" + value + "'");
  *files = k;
  return Status::Ok();
}

}  // namespace mallat::tools
