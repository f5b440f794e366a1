// A build without CUDA: there is no device runner to make, nor device
// memory for a raster.
#include "codec/stages/device_raster.h"
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
void inject_device_tile_failures(DeviceTileContext&, int, int) {}

std::unique_ptr<TileStages> make_device_tile_stages(ThreadPool& pool, dwt::Backend& dwt, DeviceTileContext&) {
  return make_cpu_tile_stages(pool, dwt);
}

Status device_raster_ready() {
  return device_error("this mallat was built without CUDA (configure with -DMALLAT_CUDA=ON): device output needs it");
}

Result<std::shared_ptr<uint8_t>> make_device_raster(size_t) { return device_raster_ready(); }

Status upload_raster_part(const uint8_t*, uint8_t*, size_t, size_t, size_t, size_t, size_t, ThreadPool&) {
  return device_raster_ready();
}

Status finish_device_raster() { return device_raster_ready(); }

Status download_device_raster(const uint8_t*, size_t, uint8_t*) { return device_raster_ready(); }

}  // namespace mallat::codec
