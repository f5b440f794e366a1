// Where a tile's data lies on the device when the device runner
// (device_tile_stages.h) takes every inverse stage of it: the Tier-1
// decoding batch of its code-blocks (entropy/t1_decode_batch.h), per block
// the reconstruction into its packed place in the planes (inverse_jobs.h),
// the planes laid out as the forward runner's (device_tile_plan.h), and per
// plane the output into its component's stored samples. Plain C++ with no
// CUDA, so that CI checks the plan, replayed on the host, against the CPU
// runner (tests/codec/device_decode_plan_test.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "codec/stages/device_rule.h"
#include "codec/stages/device_tile_plan.h"
#include "codec/stages/inverse_jobs.h"
#include "codec/stages/tile_buffers.h"
#include "common/status.h"
#include "entropy/t1_decode_batch.h"

namespace mallat::codec {

struct DeviceDecodePlan : DevicePlaneLayout {
  // The blocks with passes, in block order (batched[k] is job k's block).
  std::vector<size_t> batched;
  entropy::T1DecodeBatchLayout t1;
  // Every block inside its plane, those without passes too.
  std::vector<DequantiseJob> dequantise;
  // Planes its blocks do not cover whole, zero-filled first (decode_blocks'
  // rule).
  std::vector<size_t> zero_filled;
  std::vector<OutputPlane> output;
  // The output is the tile's part of DecodeTile::raster as it lies there:
  // pixel (x, y)'s component c at byte (y * width + x) * components + c of
  // the stored buffer (OutputPlane::interleave), so that it goes down
  // straight into the raster's rows. Where the tile has a raster, its
  // components are one-byte samples of one size at one place.
  bool interleaved = false;
  // Where plane c's sample (0, 0) lies in image component c.
  std::vector<int64_t> image_x, image_y;
};

// The plan of a tile that device_decode_unsupported (device_rule.h) accepts.
Result<DeviceDecodePlan> plan_device_decode(const DecodeTile& tile);

// What the device's reconstruction does for `job`, on the host: its block's
// values in `t1_samples` (Tier-1's batch) into `planes`, with the block's
// Tier-1 `results`.
void dequantise_on_host(const DequantiseJob& job, const int32_t* t1_samples,
                        const entropy::SharedT1DecodeResult* results, int32_t* planes);

// What the device's output does for plane c, on the host: its samples from
// `planes` to `stored` (the plan's stored buffer).
void output_on_host(const DeviceDecodePlan& plan, size_t c, const int32_t* planes, void* stored);

}  // namespace mallat::codec
