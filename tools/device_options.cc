#include "tools/device_options.h"

#include <vector>

#include "tools/option_values.h"

namespace mallat::tools {

Status parse_device_share(const std::string& value, DeviceRequest* request) {
  std::vector<double> one;
  if (!parse_doubles(value, &one) || one.size() != 1 || !(one[0] >= 0 && one[0] <= 1))
    return invalid_argument("--device-share must be a number from 0 to 1, got '" + value + "'");
  request->share = one[0];
  return Status::Ok();
}

Status parse_device_slots(const std::string& value, DeviceRequest* request) {
  if (value.size() != 1 || value[0] < '1' || value[0] > '4')
    return invalid_argument("--device-slots must be a whole number from 1 to 4, got '" + value + "'");
  request->slots = value[0] - '0';
  return Status::Ok();
}

Status parse_device_tile_slots(const std::string& value, DeviceRequest* request) {
  int64_t n = 0;
  if (!parse_int(value, 1, 16, &n))
    return invalid_argument("--device-tile-slots must be a whole number from 1 to 16, got '" + value + "'");
  request->tile_slots = static_cast<int>(n);
  return Status::Ok();
}

Status parse_device_rounds(const std::string& value, DeviceRequest* request) {
  using Close = entropy::DeviceCoderOptions::RoundClose;
  if (value == "window") {
    request->rounds = Close::kWindow;
  } else if (value == "free") {
    request->rounds = Close::kSlotFree;
  } else if (value == "idle") {
    request->rounds = Close::kDeviceIdle;
  } else {
    return invalid_argument("--device-rounds must be 'window', 'free' or 'idle', got '" + value + "'");
  }
  return Status::Ok();
}

Status parse_device_stages(const std::string& value, DeviceRequest* request) {
  if (value == "all") {
    request->whole_tiles = true;
  } else if (value == "tier1") {
    request->whole_tiles = false;
  } else {
    return invalid_argument("--device-stages must be 'all' or 'tier1', got '" + value + "'");
  }
  return Status::Ok();
}

bool device_whole_tiles(const DeviceRequest& request, bool batch) {
  return request.whole_tiles ? *request.whole_tiles : batch && kBatchWholeTiles;
}

void apply_device_request(const DeviceRequest& request, bool batch, int files_at_once,
                          entropy::DeviceCoderOptions& coder) {
  if (request.share >= 0 || batch) {
    coder.device_share = request.share >= 0 ? request.share : kBatchDeviceShare;
    coder.adapt = false;
  }
  coder.coalesce_callers = files_at_once;
  if (batch) {
    coder.device_slots = kBatchDeviceSlots;
    coder.coalesce_close = entropy::DeviceCoderOptions::RoundClose::kSlotFree;
  }
  if (request.slots > 0) coder.device_slots = request.slots;
  if (request.rounds) coder.coalesce_close = *request.rounds;
}

}  // namespace mallat::tools
