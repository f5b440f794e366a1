// The device runner's TileStages (device_tile_stages.h) over a context's
// slots (device_tile_context.h): the tiles the device takes go there whole,
// the others, and those whose run failed there, to the CPU runner.
#include <memory>
#include <optional>
#include <string>

#include "codec/stages/cuda/device_tile_context.h"
#include "codec/stages/device_rule.h"
#include "codec/stages/device_tile_stages.h"

namespace mallat::codec {

namespace {

class DeviceTileStages final : public TileStages {
 public:
  // A tile waits for the device's start (a device that cannot start
  // leaves it to the CPU runner), asked once, so that a tile goes one way.
  DeviceTileStages(ThreadPool& pool, dwt::Backend& dwt, DeviceTileContext& device)
      : pool_(pool), cpu_(make_cpu_tile_stages(pool, dwt)), device_(device), started_(device.wait_started().ok()) {}
  // A tile kept for rate control lets its slot go with its runner.
  ~DeviceTileStages() override { let_go(); }

  std::string name() const override {
    return "device (colour, DWT, quantisation, Tier-1 and their inverses on CUDA), else " + cpu_->name();
  }

  bool keeps_whole(const EncodeTile& tile) const override {
    return started_ && !device_.failed() && device_tile_unsupported(tile).empty();
  }

  // A tile whose run failed on the device is run again on the CPU runner,
  // from its image's samples (the device's partial results overwritten);
  // a fed tile's rows have gone, so its failure is the run's.
  Status forward(ForwardStage first, ForwardStage last, EncodeTile& tile) override {
    // (A tile with statistics stops at quantisation on the device: not
    // every stage, forward_kept's.)
    if (tile.feed != nullptr) {
      if (first != ForwardStage::kComponentTransform || last != ForwardStage::kBlockCoding || tile.ht_statistics ||
          !keeps_whole(tile))
        return internal_error("a fed tile that the device does not keep whole");
      return device_.run(tile, pool_);
    }
    if (first == ForwardStage::kComponentTransform && last == ForwardStage::kBlockCoding && !tile.ht_statistics &&
        keeps_whole(tile)) {
      const Status ran = device_.run(tile, pool_);
      if (ran.code() != ErrorCode::kDeviceError) return ran;
      tile.device_failure = ran.message();
    }
    if (const std::optional<Status> kept = forward_kept(first, last, tile)) return *kept;
    allocate(tile);
    return cpu_->forward(first, last, tile);
  }

  bool keeps_whole(const DecodeTile& tile) const override {
    return started_ && !device_.failed() && device_decode_unsupported(tile).empty();
  }

  // A tile the device could not decode (a block's parameters stopped its
  // decoder) goes to the CPU runner, whose message names the block; so does
  // one whose run failed on the device, every sample written again.
  Status inverse(InverseStage first, InverseStage last, DecodeTile& tile) override {
    if (first == InverseStage::kBlockDecoding && last == InverseStage::kOutput && keeps_whole(tile)) {
      const Result<bool> done = device_.run(tile, pool_);
      if (done.ok() && *done) return Status::Ok();
      if (!done.ok() && done.status().code() != ErrorCode::kDeviceError) return done.status();
      if (!done.ok()) tile.device_failure = done.status().message();
      tile.raster_on_device = false;  // the CPU runner's samples go to the host raster
    }
    return cpu_->inverse(first, last, tile);
  }

 private:
  ThreadPool& pool_;
  std::unique_ptr<TileStages> cpu_;
  DeviceTileContext& device_;
  const bool started_;
  // The slot holding a tile kept for rate control (device_ht_rate.h).
  DeviceTileSlot* held_ = nullptr;

  static void allocate(EncodeTile& tile) {
    for (TilePlane& plane : tile.planes) {
      if (!plane.storage) plane.allocate();
    }
  }
  void let_go() {
    if (held_ != nullptr) device_.release(held_);
    held_ = nullptr;
  }

  // Rate control by estimates: the stages to quantisation of a tile the
  // device keeps whole, which then holds its slot, and its rounds of
  // coding there. A device failure at either sends the tile to the CPU
  // runner, the stages to quantisation run again there for the host's
  // indices (the same indices, findings and estimates); none for any other
  // call.
  std::optional<Status> forward_kept(ForwardStage first, ForwardStage last, EncodeTile& tile) {
    if (first == ForwardStage::kComponentTransform && last == ForwardStage::kQuantisation && tile.ht_statistics &&
        keeps_whole(tile)) {
      let_go();
      const Status ran = device_.run_and_hold(tile, pool_, held_);
      if (ran.code() != ErrorCode::kDeviceError) return ran;
      tile.device_failure = ran.message();
      return std::nullopt;
    }
    if (first != ForwardStage::kBlockCoding || last != ForwardStage::kBlockCoding || held_ == nullptr)
      return std::nullopt;
    const Status ran = device_.code_round(*held_, tile, pool_);
    if (ran.code() != ErrorCode::kDeviceError) return ran;
    tile.device_failure = ran.message();
    let_go();
    allocate(tile);
    MALLAT_RETURN_IF_ERROR(cpu_->forward(ForwardStage::kComponentTransform, ForwardStage::kQuantisation, tile));
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<TileStages> make_device_tile_stages(ThreadPool& pool, dwt::Backend& dwt, DeviceTileContext& device) {
  return std::make_unique<DeviceTileStages>(pool, dwt, device);
}

}  // namespace mallat::codec
