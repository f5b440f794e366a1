// The device runner (tile_stages.h). Forward: for a tile it covers (the
// rule of device_rule.h: device_tile_unsupported), the tile's samples go up once and DC shift,
// RCT or ICT (G.1.2, G.2, G.3), the 5/3 or 9/7 DWT (Annex F, dwt/cuda),
// the 9/7's quantisation (Annex E) and Tier-1 (Annex D, entropy/cuda) run
// on the GPU one after another on one stream; only the code-blocks' bytes
// with their passes and distortions (and the 9/7's quantisation findings)
// come back. Each step gives the CPU's results bit for bit (the same
// per-sample rules, the DWT's and Tier-1's own equality), so the codestream
// is the CPU path's. A tile under HT rate control by estimates
// (EncodeTile::ht_statistics, in an image of one tile) runs to quantisation
// with each block's plane statistics instead of Tier-1, and keeps its slot
// and its indices there for rate control's rounds of block coding, each a
// forward(kBlockCoding, kBlockCoding) call, until the runner is dropped
// (cuda/device_ht_rate.h). Any other tile, or a range of stages other than
// these, runs through the CPU runner (make_cpu_tile_stages), with the
// same results. Inverse, for a tile it covers (device_rule.h:
// device_decode_unsupported): the code-blocks' bytes go up as Tier-2 found
// them, and Tier-1 decoding, reconstruction (E.1, H.1), the inverse DWT,
// the inverse RCT or ICT, DC shift and clamp run on the GPU; the samples
// come back at their stored width (cuda/device_decode_slot.h), the CPU
// runner's samples bit for bit.
#pragma once

#include <memory>
#include <string>

#include "codec/stages/tile_stages.h"
#include "common/status.h"
#include "common/thread_pool.h"
#include "dwt/dwt.h"

namespace mallat::codec {

// The device's slots: each a stream and the memory of one tile at a time,
// made once and reused by every tile it runs (growing to the largest tile,
// never shrinking). A tile takes the first free slot and holds it while it
// is on the device, so callers (a batch's lanes) share the slots: a lane
// that reads, allocates rates or writes holds none, except a tile kept for
// HT rate control by estimates, whose slot is held until its runner is
// dropped (one a lane: device_rule.h's device_codes_again_problem).
class DeviceTileContext;

// Starts CUDA on device 0 for a runner with one slot: an error where the
// build has no CUDA or no device can be used. `sharing`: how many slots
// launch side by side on the device, which sets how Tier-1 spreads a tile's
// blocks over warps.
Result<std::shared_ptr<DeviceTileContext>> make_device_tile_context(int sharing = 1);

// The same with `slots` slots, started on a thread of its own: it returns
// at once, so that a batch reads its first files while CUDA starts; the
// runner's first tile waits for the start. Where the device cannot start,
// every tile goes to the CPU runner (the same output); wait_started says
// why. The first files are not coded on the CPU meanwhile: they would hold
// the lanes and slow CUDA's start-up, which costs a batch more.
//
// `use`: what the slots are started for, on that thread: Tier-1 encoders
// for an encode, the decoding side and the inverse kernels for a decode;
// a slot makes the other side at its first tile of that direction.
enum class DeviceTileUse { kEncode, kDecode };
std::shared_ptr<DeviceTileContext> start_device_tile_context(int sharing = 1, int slots = 1,
                                                             DeviceTileUse use = DeviceTileUse::kEncode);
Status wait_started(DeviceTileContext& device);

// What a runner's tiles took so far, summed (`mallat bench codec`): the
// CPU's narrowing and finishing by the host's clock, the device's steps by
// CUDA events between them on the stream (no waits added).
struct DeviceTileTimes {
  uint64_t tiles = 0;
  double narrow_ms = 0;      // samples to their stored width, on the pool (CPU)
  double upload_ms = 0;      // the copy up and the widening
  double colour_dwt_ms = 0;  // DC shift, RCT or ICT, the DWT
  double quantise_ms = 0;    // the 9/7's blocks quantised where they lie
  double tier1_ms = 0;       // the Tier-1 kernel
  double download_ms = 0;    // the blocks' bytes, passes and results down
  double finish_ms = 0;      // slots to code-blocks (CPU)
  // The device's busy time: the union of the tiles' spans on their slots'
  // streams (busy_time.h), each from its first step queued to its last
  // done; where slots run side by side, less than the steps' sum.
  double busy_ms = 0;
  double tier1_busy_ms = 0;  // the same for the Tier-1 kernels alone
};
// Sums (a context's over its tiles) and differences (a benchmark's round).
inline DeviceTileTimes& operator+=(DeviceTileTimes& a, const DeviceTileTimes& b) {
  a.tiles += b.tiles;
  a.narrow_ms += b.narrow_ms;
  a.upload_ms += b.upload_ms;
  a.colour_dwt_ms += b.colour_dwt_ms;
  a.quantise_ms += b.quantise_ms;
  a.tier1_ms += b.tier1_ms;
  a.download_ms += b.download_ms;
  a.finish_ms += b.finish_ms;
  a.busy_ms += b.busy_ms;
  a.tier1_busy_ms += b.tier1_busy_ms;
  return a;
}
inline DeviceTileTimes operator-(const DeviceTileTimes& a, const DeviceTileTimes& b) {
  return {a.tiles - b.tiles,         a.narrow_ms - b.narrow_ms, a.upload_ms - b.upload_ms,
          a.colour_dwt_ms - b.colour_dwt_ms, a.quantise_ms - b.quantise_ms, a.tier1_ms - b.tier1_ms,
          a.download_ms - b.download_ms, a.finish_ms - b.finish_ms, a.busy_ms - b.busy_ms,
          a.tier1_busy_ms - b.tier1_busy_ms};
}
DeviceTileTimes device_tile_times(DeviceTileContext& device);

// The same for the inverse stages: the host's gathering and widening by
// its clock, the device's steps by CUDA events.
struct DeviceDecodeTimes {
  uint64_t tiles = 0;
  double gather_ms = 0;    // the blocks' bytes into pinned memory (CPU)
  double upload_ms = 0;    // bytes, segment lengths and jobs up
  double tier1_ms = 0;     // the Tier-1 decoding kernel
  double inverse_ms = 0;   // reconstruction, inverse DWT, colour and clamp
  double download_ms = 0;  // the stored samples and results down
  double widen_ms = 0;     // the stored samples into the image (CPU)
  double busy_ms = 0;        // the device's busy time, as DeviceTileTimes's
  double tier1_busy_ms = 0;  // and its Tier-1 kernels'
};
inline DeviceDecodeTimes& operator+=(DeviceDecodeTimes& a, const DeviceDecodeTimes& b) {
  a.tiles += b.tiles;
  a.gather_ms += b.gather_ms;
  a.upload_ms += b.upload_ms;
  a.tier1_ms += b.tier1_ms;
  a.inverse_ms += b.inverse_ms;
  a.download_ms += b.download_ms;
  a.widen_ms += b.widen_ms;
  a.busy_ms += b.busy_ms;
  a.tier1_busy_ms += b.tier1_busy_ms;
  return a;
}
inline DeviceDecodeTimes operator-(const DeviceDecodeTimes& a, const DeviceDecodeTimes& b) {
  return {a.tiles - b.tiles,         a.gather_ms - b.gather_ms,     a.upload_ms - b.upload_ms,
          a.tier1_ms - b.tier1_ms,   a.inverse_ms - b.inverse_ms,   a.download_ms - b.download_ms,
          a.widen_ms - b.widen_ms,   a.busy_ms - b.busy_ms,
          a.tier1_busy_ms - b.tier1_busy_ms};
}
DeviceDecodeTimes device_decode_times(DeviceTileContext& device);

// A runner over `device` (which outlives it) with the CPU runner on
// `pool` and `dwt` for what the device does not take. A tile whose run on
// the device fails there (a CUDA call's error: memory, a launch, a fault)
// runs on the CPU runner instead, with the same results, its
// `device_failure` saying why; the context keeps that failure and sends
// every later tile to the CPU (a faulted context stays faulted).
std::unique_ptr<TileStages> make_device_tile_stages(ThreadPool& pool, dwt::Backend& dwt, DeviceTileContext& device);

// The device failure that sent tiles to the CPU runner, OK while none has.
Status device_tile_failure(DeviceTileContext& device);
// For tests: the next `runs` tiles' runs on the device (either direction)
// report a device failure once they have run, as a launch whose error
// shows at the end would; after `after` runs that pass (a run: a tile's
// stages, or one round of rate control's coding of a kept tile).
void inject_device_tile_failures(DeviceTileContext& device, int runs, int after = 0);

}  // namespace mallat::codec
