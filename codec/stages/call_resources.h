// What one encode or decode call runs on, when a caller (the engine,
// engine/) made it beforehand to reuse across calls: the DWT backend, the
// thread pool, the device's coders and runner context, and where stage
// times go. Not part of the public API: codec::EncodeOptions and
// codec::DecodeOptions hold plain values only, and codec::encode /
// codec::decode run with an empty CallResources (everything made for the
// call, on the CPU unless the options' dwt_backend says otherwise).
#pragma once

#include <cstdint>
#include <memory>

#include "common/job_thread.h"
#include "common/thread_pool.h"
#include "dwt/dwt.h"
#include "entropy/block_coder.h"

namespace mallat::codec {

class DeviceTileContext;  // codec/stages/device_tile_stages.h
struct KeptIndexMemory;   // codec/encoder/kept_indices.h
struct StageTimes;        // codec/api/stage_times.h

struct CallResources {
  // A backend made once (dwt::make_backend) and reused by many calls; null:
  // the call makes one of the options' dwt_backend. A backend serves one
  // call at a time: calls that share one must not overlap.
  std::shared_ptr<dwt::Backend> dwt;
  // The pool the call's stages run on; null: the call makes one of the
  // options' threads. Not re-entrant: one call at a time.
  ThreadPool* pool = nullptr;
  // Where a streamed encode on several threads frees what it is done with
  // (its strips, band buffers and coded blocks: TileCodingSetup::release),
  // a thread that outlives the call (the engine lane's), so that the
  // freeing holds up neither the file's assembly nor its close; null: the
  // call makes one, waited for before it returns.
  JobThread* release = nullptr;
  // Codes an encode's Part 1 code-blocks when set, whatever the DWT (the
  // hybrid device + CPU coder of entropy::make_device_block_encoder: the
  // CPU coder's bytes). Calls at once may share it.
  std::shared_ptr<entropy::BlockEncoder> block_encoder;
  // Decodes the code-blocks of a decode, whole-tile or streamed, when set
  // (the hybrid decoder of entropy::make_device_block_decoder, over every
  // coder that has a device decoder: the CPU decoder's samples). Calls at
  // once may share it.
  std::shared_ptr<entropy::BlockDecoder> block_decoder;
  // When set (codec/stages/device_tile_stages.h), a tile the device runner
  // covers goes to the GPU whole, forward (Part 1 code-blocks, no ROI) or
  // inverse (a whole decode of Part 1 code-blocks of at most 16 bits), with
  // the CPU path's results; other tiles take the path above. Calls at once
  // may share it: each tile waits for a free slot of it.
  std::shared_ptr<DeviceTileContext> device_tiles;
  // When set, each stage's time is added to it (stage_times.h), and the
  // stages run timed one by one (the same results).
  StageTimes* stage_times = nullptr;
  // When set, a decode that gives a raster (decode.h's raster overload)
  // gives it in device memory here (device_raster.h) and leaves the host's
  // raster empty; tiles the device runner decodes never leave the device.
  std::shared_ptr<uint8_t>* device_raster = nullptr;
  // When set, a streamed HT encode under a size target keeps its first
  // tile's indices as they are here (kept_indices.h), memory a batch lane
  // reuses from file to file. One call at a time.
  std::shared_ptr<KeptIndexMemory> kept_indices;
};

}  // namespace mallat::codec
