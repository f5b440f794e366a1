// A build without CUDA: there is no device runner to make.
#include "codec/stages/device_tile_stages.h"

namespace mallat::codec {

class DeviceTileContext {};

Result<std::shared_ptr<DeviceTileContext>> make_device_tile_context(int) {
  return device_error("this mallat was built without CUDA (configure with -DMALLAT_CUDA=ON)");
}

std::shared_ptr<DeviceTileContext> start_device_tile_context(int, int, DeviceTileUse) { return std::make_shared<DeviceTileContext>(); }

Status wait_started(DeviceTileContext&) {
  return device_error("this mallat was built without CUDA (configure with -DMALLAT_CUDA=ON)");
}

DeviceTileTimes device_tile_times(DeviceTileContext&) { return {}; }
DeviceDecodeTimes device_decode_times(DeviceTileContext&) { return {}; }

Status device_tile_failure(DeviceTileContext&) { return Status::Ok(); }
void inject_device_tile_failures(DeviceTileContext&, int) {}

std::unique_ptr<TileStages> make_device_tile_stages(ThreadPool& pool, dwt::Backend& dwt, DeviceTileContext&) {
  return make_cpu_tile_stages(pool, dwt);
}

}  // namespace mallat::codec
