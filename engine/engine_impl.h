// What an Engine (codec/api/engine.h) holds: per direction its placement,
// lanes and device runner context; the device coders shared by the lanes.
// Internal to engine/ and the library's own tools (`mallat bench codec`
// reports on the device coders through it).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "codec/api/engine.h"
#include "codec/stages/call_resources.h"
#include "codec/stages/device_tile_stages.h"
#include "engine/lanes.h"
#include "engine/raster_store.h"
#include "entropy/block_coder.h"

namespace mallat {

class Engine::Impl {
 public:
  explicit Impl(EngineOptions options);

  const EngineOptions& options() const { return options_; }
  Result<Placement> prepare_encode(const codec::EncodeOptions& options, const Workload& work);
  Result<Placement> prepare_decode(const codec::DecodeOptions& options, const Workload& work);
  Result<std::vector<uint8_t>> encode(const Image& image, const codec::EncodeOptions& options,
                                      codec::EncodeReport* report);
  Status encode_streamed(const codec::RowSource& source, const codec::EncodeOptions& options,
                         const codec::FileSink& sink, codec::EncodeReport* report,
                         const codec::FileSizeHint* size_hint);
  Result<Image> decode(std::span<const uint8_t> data, const codec::DecodeOptions& options,
                       codec::DecodeReport* report, std::vector<uint8_t>* raster);
  Result<bool> decode_streamed(std::span<const uint8_t> data, const codec::DecodeOptions& options,
                               codec::RowSink& sink, codec::DecodeReport* report);
  std::vector<EncodeResult> encode_batch(std::span<const EncodeItem> items, const codec::EncodeOptions& options,
                                         const EncodeHooks& hooks);
  std::vector<DecodeResult> decode_batch(std::span<const DecodeItem> items, const codec::DecodeOptions& options,
                                         const DecodeHooks& hooks);

  EngineCounts counts() const {
    return {lanes_made_.load(), pools_made_.load(), coders_made_.load(), contexts_made_.load()};
  }
  bool started() const { return started_; }
  // The device coders (null where none was started) and runner contexts.
  entropy::BlockEncoder* encoder() const { return encoder_.get(); }
  entropy::BlockDecoder* decoder() const { return decoder_.get(); }
  codec::DeviceTileContext* encode_tiles() const { return encode_.placement.whole_tiles ? encode_.tiles.get() : nullptr; }
  codec::DeviceTileContext* decode_tiles() const { return decode_.placement.whole_tiles ? decode_.tiles.get() : nullptr; }
  std::string dwt_name();

 private:
  // One direction's state.
  struct Side {
    bool prepared = false;
    Placement placement;
    std::shared_ptr<codec::DeviceTileContext> tiles;
    // Lanes by their threads: single calls take one of every engine
    // thread, a CPU batch's lanes share them (Placement::threads_per_lane).
    std::map<int, std::unique_ptr<engine::LaneSet>> lanes;
  };

  void keep(std::shared_ptr<void> device);
  // Makes the device coder (`make`) into `coder` where the placement
  // starts it (`start`) and none is made yet.
  template <class Coder, class Make>
  Status start_coder(bool start, std::shared_ptr<Coder>& coder, const Make& make);
  Result<std::unique_ptr<engine::Lane>> make_lane(Side& side, int threads);
  void share_with(const Side& side, engine::Lane& lane) const;
  // The lanes of `threads` threads, made empty on first use (under mutex_).
  engine::LaneSet& lanes_of(Side& side, int threads);
  // Every lane of a side, for setting what they share.
  std::vector<engine::Lane*> all_lanes(Side& side);
  // The lanes of `threads` threads, grown to at least `lanes`.
  Result<engine::LaneSet*> grow(Side& side, int threads, int lanes);
  void start_tiles(Side& side, bool batch, int most, codec::DeviceTileUse use);
  codec::CallResources resources_for(engine::Lane& lane, bool time_stages) const;
  // Placement::files_at_once and threads_per_lane for `work` (a CPU batch's
  // from engine::cpu_batch_lanes).
  void place_lanes(Placement& placement, const Workload& work) const;
  void share_with_all(Side& side);
  // A lane of every engine thread for one call.
  Result<engine::LaneSet::Held> lane_for_one(Side& side);

  EngineOptions options_;
  std::mutex mutex_;  // the placement's decisions
  Side encode_, decode_;
  engine::RasterStore rasters_;  // a decode batch's, for its later items
  std::shared_ptr<entropy::BlockEncoder> encoder_;
  std::shared_ptr<entropy::BlockDecoder> decoder_;
  std::atomic<bool> started_{false};
  std::atomic<int> lanes_made_{0}, pools_made_{0}, coders_made_{0}, contexts_made_{0};
};

}  // namespace mallat
