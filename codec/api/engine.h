// mallat::Engine: the one object that owns run-time policy for encoding and
// decoding: the thread pools, where the work runs (the CPU, a CUDA device,
// or the device where one is found), the device's context, coders and tile
// slots, the batch lanes (files coded at once, files read ahead) and the
// placement rule (what goes to the device). It codes one image or a batch,
// in memory or from paths, and keeps what it made for the next call, so a
// program that calls it many times pays a device's start-up and buffers
// once. The plain codec::encode / codec::decode (encode.h, decode.h) run on
// the CPU with everything made for the call. Implemented in engine/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "codec/api/decode.h"
#include "codec/api/decode_streamed.h"
#include "codec/api/encode.h"
#include "codec/api/encode_streamed.h"
#include "common/image.h"
#include "common/status.h"

namespace mallat {

// Where an engine's work runs. kAuto: the device where the build has CUDA
// and one starts, else the CPU (the same output either way).
enum class Device { kCpu, kCuda, kAuto };

// When a round of the lanes' device Tier-1 blocks is launched (see
// entropy::DeviceCoderOptions::RoundClose): the placement's default, once
// every lane has joined or a window has passed, as soon as a slot is free,
// or as soon as a slot is free and no other launch is under way.
enum class DeviceRounds { kDefault, kWindow, kSlotFree, kDeviceIdle };

// What a device does of a tile: the placement's default (whole tiles for a
// batch, Tier-1 for one item), every stage of a tile it covers, or Tier-1
// alone beside the CPU's threads.
enum class DeviceStages { kDefault, kAll, kTier1 };

struct EngineOptions {
  Device device = Device::kCpu;
  // Threads the engine codes on; 0: one per hardware thread. One call
  // (encode, decode) runs on all of them; a batch on the CPU shares them
  // among its lanes, and a batch with a device gives each lane all of them
  // (engine/placement.h). Output is the same for any number.
  int threads = 0;
  // Items coded at once in a batch, each in a lane of its own; 0: the
  // placement's default for the work (on the CPU, one per thread where
  // memory holds them).
  int files_at_once = 0;
  // Items a batch reads ahead of its lanes; 0: the placement's default.
  int files_ahead = 0;
  // The part of each tile's Part 1 code-block samples the device codes
  // (0..1, fixed); < 0: the placement's default. Given, one encoded image
  // uses the device whatever its size.
  double device_share = -1;
  // Rounds of device Tier-1 that hold the device at once (1..4); 0: default.
  int device_slots = 0;
  // Tiles on the device at once, shared by the lanes (whole tiles); 0:
  // the lanes, up to the placement's most.
  int device_tile_slots = 0;
  DeviceRounds device_rounds = DeviceRounds::kDefault;
  DeviceStages device_stages = DeviceStages::kDefault;
  // Where the DWT of a call runs: the CPU unless asked (the CUDA DWT's
  // plane copies cost more than the transform; for benchmarks).
  Device dwt = Device::kCpu;
  // true: one item uses the device too; false: the placement rule keeps
  // one small item on the CPU (engine/placement.h).
  bool device_for_one_item = false;
  // true: a call waits for the device's start-up rather than coding its
  // first blocks on the CPU meanwhile (benchmarks).
  bool wait_for_device = false;
  // Each call's stage times in its report (codec::StageTimes).
  bool time_stages = false;
  // The device's context and coders are never torn down: a process that
  // leaves with std::_Exit once its files are written skips CUDA's
  // teardown and never waits for a start-up (device_started_in_process).
  bool keep_device_until_exit = false;
};

// What the engine is about to do, so that it can start the device while
// the caller reads its input.
struct Workload {
  bool batch = false;             // several items: the batch's defaults
  uint64_t expected_samples = 0;  // about the first item's samples; 0: unknown (small)
  bool streamed = false;          // one item coded strip by strip (encode_streamed, decode_streamed)
  uint64_t items = 0;             // a batch's items; 0: unknown (taken as enough for the device)
  bool ht = false;                // a decode's first item is HT-coded (an encode's options say)
  bool irreversible = false;      // a decode's first item is on the 9/7 path (COD's transformation)
  bool strips_asked = false;      // one item the caller wants coded strip by strip (--streamed), not whole
};

// What the placement decided for a workload.
struct Placement {
  bool device = false;       // the device coder was started (or is starting)
  bool whole_tiles = false;  // tiles the device runner covers go to the device whole
  int files_at_once = 1;     // the batch's lanes
  int threads_per_lane = 1;  // each batch lane's threads (one call has every engine thread)
  int files_ahead = 2;       // items read ahead of the lanes
};

// One item of an encode batch: an image in memory, or a path read by the
// hooks' `read` (or io::read_image without one).
struct EncodeItem {
  std::string path;
  const Image* image = nullptr;
};
struct EncodeResult {
  Status status;
  // EncodeHooks::stream wrote the item strip by strip: `bytes` is empty and
  // `write` was not called.
  bool streamed = false;
  std::vector<uint8_t> bytes;  // the file, unless the `write` hook took it
  codec::EncodeReport report;
};
// Per-item steps a caller supplies (each may be empty). `read` and `write`
// run on the item's own thread beside other items' coding; `done` runs on
// the calling thread, in the items' order, as soon as an item and those
// before it are finished. A failed step fails its item alone.
struct EncodeHooks {
  std::function<Result<Image>(size_t index)> read;
  // Where set, it reads in place of `read` the items of a batch whose
  // tiles go to the device whole (Placement::whole_tiles): their images
  // may hold samples at their stored width (Component::stored,
  // io::SampleForm::kStoredWhereCheap), which the device takes up as they
  // are.
  std::function<Result<Image>(size_t index)> read_stored;
  std::function<Status(size_t index, EncodeResult& result)> write;
  std::function<void(size_t index, EncodeResult& result)> done;
  // Where both are set, a batch on the CPU alone (Placement::device false)
  // asks `streams` in each item's read step whether the caller encodes it
  // strip by strip; such an item is not read, and on its lane `stream`
  // encodes it: it hands `encode` (encode_streamed.h's encode, on the lane;
  // notes to the item's report) its rows and the sink of its file, and
  // returns its status (EncodeResult::streamed; `write` is not called).
  // A lane then holds a strip's memory, not a whole image's.
  // (`size_hint` may be null.)
  using StreamedEncode = std::function<Status(const codec::RowSource& source, const codec::FileSink& sink,
                                              const codec::FileSizeHint* size_hint)>;
  std::function<bool(size_t index)> streams;
  std::function<Status(size_t index, const StreamedEncode& encode)> stream;
};

// One item of a decode batch: bytes in memory, or a path read by the
// hooks' `read` (or read whole without one).
struct DecodeItem {
  std::string path;
  std::span<const uint8_t> data;
  bool raster = false;           // the samples as a PNM raster where the image allows (decode.h)
  bool apply_jp2_header = true;  // false: the components as coded, whatever the options say
  // With `raster`: the raster in device 0's memory (DecodeResult::
  // device_raster) instead of the host's. Tiles decoded on the device stay
  // there; tiles decoded on the CPU are copied up. An image that gives no
  // raster comes back in `image` as without it. Without CUDA in the build
  // or without a device, the item fails with kDeviceError.
  bool raster_on_device = false;
};
struct DecodeResult {
  Status status;
  // DecodeHooks::stream wrote the item strip by strip: `image` and
  // `raster` are empty and `write` was not called.
  bool streamed = false;
  Image image;
  std::vector<uint8_t> raster;
  // DecodeItem::raster_on_device's raster (raster's layout and size),
  // written and ready for any stream; freed when the last owner lets go.
  std::shared_ptr<uint8_t> device_raster;
  codec::DecodeReport report;
};
// A raster that `write` leaves in its result is taken back once it
// returns: the engine reuses its memory for a later item's raster.
struct DecodeHooks {
  std::function<Result<std::vector<uint8_t>>(size_t index)> read;
  std::function<Status(size_t index, DecodeResult& result)> write;
  std::function<void(size_t index, DecodeResult& result)> done;
  // Where set, a batch on the CPU alone (Placement::device false) first
  // offers each item to it, with the item's bytes and its decode strip by
  // strip on the item's lane (`decode` runs decode_streamed.h's decode into
  // the sink it is given; its warnings go to the item's report): true, the
  // hook wrote the item that way (DecodeResult::streamed); false, nothing
  // written, the item is decoded whole as without the hook. Strips hold a
  // fraction of a whole image's memory, so the lanes' items share the
  // caches and the memory bus better.
  using StreamedDecode = std::function<Result<bool>(codec::RowSink& sink)>;
  std::function<bool(size_t index, std::span<const uint8_t> data, const StreamedDecode& decode)> stream;
};

// What an engine made so far: each is made once and reused by later calls.
struct EngineCounts {
  int lanes = 0;            // lanes (a thread pool and a DWT backend each)
  int thread_pools = 0;
  int device_coders = 0;    // device Tier-1 coders (encoder and decoder)
  int device_contexts = 0;  // device runner contexts (tile slots)
};

class Engine {
 public:
  explicit Engine(EngineOptions options = {});
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  const EngineOptions& options() const;

  // Decide where a workload runs and start the device for it in the
  // background. A call codes with what was prepared last; one not prepared
  // prepares itself (one item, its size). A process that returns from main
  // or calls exit while that start runs waits for it (up to 30 s) rather
  // than tear the device's runtime down under it. Errors: the device asked for
  // (kCuda) in a build without CUDA, or a device coder that cannot be made.
  Result<Placement> prepare_encode(const codec::EncodeOptions& options, const Workload& work);
  Result<Placement> prepare_decode(const codec::DecodeOptions& options, const Workload& work);

  Result<std::vector<uint8_t>> encode(const Image& image, const codec::EncodeOptions& options,
                                      codec::EncodeReport* report = nullptr);
  // The streamed encode (encode_streamed.h): the DWT on the CPU, Tier-1 as
  // placed.
  Status encode_streamed(const codec::RowSource& source, const codec::EncodeOptions& options,
                         const codec::FileSink& sink, codec::EncodeReport* report = nullptr,
                         const codec::FileSizeHint* size_hint = nullptr);
  Result<Image> decode(std::span<const uint8_t> data, const codec::DecodeOptions& options,
                       codec::DecodeReport* report = nullptr, std::vector<uint8_t>* raster = nullptr);
  // The streamed decode (decode_streamed.h): the inverse DWT on the CPU,
  // Tier-1 as placed; false, the sink untouched, where the stream needs the
  // whole image.
  Result<bool> decode_streamed(std::span<const uint8_t> data, const codec::DecodeOptions& options,
                               codec::RowSink& sink, codec::DecodeReport* report = nullptr);

  // Every item through read, code and write, up to Placement::files_at_once
  // coded at once; results in the items' order. One item's failure never
  // stops the others.
  std::vector<EncodeResult> encode_batch(std::span<const EncodeItem> items, const codec::EncodeOptions& options,
                                         const EncodeHooks& hooks = {});
  std::vector<DecodeResult> decode_batch(std::span<const DecodeItem> items, const codec::DecodeOptions& options,
                                         const DecodeHooks& hooks = {});

  EngineCounts counts() const;
  // Why the device's Tier-1 ran on the CPU (its start failed), or OK.
  Status encode_device_status() const;
  Status decode_device_status() const;
  // Names of what codes: the DWT backend and the Part 1 Tier-1 coders.
  std::string dwt_name() const;
  std::string block_encoder_name() const;
  std::string block_decoder_name() const;
  // Whether this engine started a device coder or context.
  bool device_started() const;
  // Whether any engine with keep_device_until_exit started one, or a
  // device start-up is still running in this process.
  static bool device_started_in_process();

  // The engine's internals (engine/engine_impl.h), for the library's own
  // tools that report on its device coders.
  class Impl;
  Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace mallat
