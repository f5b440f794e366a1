// The device runner of the forward stages (tile_stages.h; issue 15,
// deliver 2): for a tile it covers (device_tile_plan.h:
// device_tile_unsupported), the tile's samples go up once and DC shift,
// RCT (G.1.2, G.2), the 5/3 DWT (Annex F, dwt/cuda) and Tier-1 (Annex D,
// entropy/cuda) run on the GPU one after another on one stream; only the
// code-blocks' bytes with their passes and distortions come back. The
// 5/3 DWT and the Tier-1 coder are the CPU's bit for bit, so the codestream
// is the CPU path's. Any other tile, or a range of stages other than all
// of them, runs through the CPU runner (make_cpu_tile_stages), with the
// same results.
#pragma once

#include <memory>
#include <string>

#include "codec/stages/tile_stages.h"
#include "common/status.h"
#include "common/thread_pool.h"
#include "dwt/dwt.h"

namespace mallat::codec {

// The device, a stream and the memory of one caller at a time (a batch's
// lane): made once, reused by every tile it runs; it grows to the largest
// tile and never shrinks.
class DeviceTileContext;

// Starts CUDA on device 0 for a runner: an error where the build has no
// CUDA or no device can be used.
Result<std::shared_ptr<DeviceTileContext>> make_device_tile_context();

// The same, started on a thread of its own: it returns at once, so that a
// batch reads its first files while CUDA starts (0.3-0.8 s); the runner's
// first tile waits for the start. Where the device cannot start, every tile
// goes to the CPU runner (the same output); wait_started says why. Coding
// the first files on the CPU meanwhile instead was slower: 41.3-45.1 ms an
// image against 35.5-36.8 (H200 machine, 2026-11-24, 64 copies of the
// 3840x2048 mosaic, lossless, 4 lanes, -threads 16, 3 alternated rounds):
// the CPU's files held the lanes and slowed CUDA's start-up.
std::shared_ptr<DeviceTileContext> start_device_tile_context();
Status wait_started(DeviceTileContext& device);

// A runner over `device` (which outlives it) with the CPU runner on
// `pool` and `dwt` for what the device does not take.
std::unique_ptr<TileStages> make_device_tile_stages(ThreadPool& pool, dwt::Backend& dwt, DeviceTileContext& device);

}  // namespace mallat::codec
