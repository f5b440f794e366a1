// Where a tile's data lies on the device when the device runner
// (device_tile_stages.h) takes every forward stage of it: its planes in one
// buffer, and the Tier-1 batch of its code-blocks (entropy/t1_encode_batch.h),
// each job reading its block where it lies. Plain C++ with no CUDA, so that
// CI checks the plan against the CPU's own blocks
// (tests/codec/device_tile_plan_test.cc).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "codec/stages/device_rule.h"
#include "codec/stages/quantise_job.h"
#include "codec/stages/tile_buffers.h"
#include "common/status.h"
#include "entropy/t1_encode_batch.h"

namespace mallat::codec {

// Where a tile's planes lie in the device's buffers, for the forward
// runner and the inverse one (device_decode_plan.h) alike.
struct DevicePlaneLayout {
  // Plane c's samples start at plane_offset[c] in a buffer of plane_samples,
  // in rows of plane_pitch[c] samples; the DWT's input and output buffers
  // are laid out alike. Rows and planes start on 128 and 256 bytes, as the
  // CUDA DWT's own buffers (dwt/cuda/cuda_backend.cc): its kernels load
  // pairs of samples as one 8-byte word.
  std::vector<uint64_t> plane_offset;
  std::vector<int64_t> plane_pitch;
  uint64_t plane_samples = 0;
  // Each of the DWT's two scratch planes holds a plane's first LL band,
  // ceil(h / 2) rows of scratch_pitch[c] (dwt/cuda/plane_transform.h), the
  // largest in scratch_samples.
  std::vector<int64_t> scratch_pitch;
  uint64_t scratch_samples = 0;
  // Plane c's samples as stored (stored_samples.h: stored_bytes of its
  // component's precision; up on the way in, down on the way out) start at
  // stored_offset[c] bytes in a buffer of stored_size, packed rows of the
  // plane's width; each plane starts on 256 bytes.
  std::vector<uint64_t> stored_offset;
  uint64_t stored_size = 0;
};

// The layout of `planes`, plane c stored in `stored_bytes[c]` bytes a sample.
DevicePlaneLayout lay_out_device_planes(std::span<const TilePlane> planes, std::span<const int> stored_bytes);

// Tier-1's batch reads the DWT's input buffer and its output buffer as one,
// the input first (plane_samples each, laid out alike): a 5/3 block's job
// points at its integers in the output, with the plane's pitch as its
// stride; a 9/7 block's at the same place in the input buffer, free once
// the DWT has run, where its quantise job writes its values (Annex E). No
// copy of a block is made.
struct DeviceTilePlan : DevicePlaneLayout {
  entropy::T1DeviceBatchLayout t1;  // t1.coefficients: 2 * plane_samples
  std::vector<QuantiseJob> quantise;
};

// The plan of a tile that device_tile_unsupported (device_rule.h) accepts.
Result<DeviceTilePlan> plan_device_tile(const EncodeTile& tile);

// One round of rate control's coding of a kept tile (EncodeTile::
// codes_blocks_again; device_tile_stages.h): the blocks encode_blocks
// would code at tile.ht_block_planes (or tile.ht_cleanup_plane) with
// tile.ht_refinement, each job reading its block where `plan` put it.
struct DeviceHtRound {
  entropy::T1DeviceBatchLayout t1;  // t1.coefficients: the plan's
  // Job k codes tile.blocks[block[k]], as shapes[k] (block_to_encode, no
  // samples: those lie on the device) tells.
  std::vector<size_t> block;
  std::vector<entropy::BlockToEncode> shapes;
};
Result<DeviceHtRound> plan_ht_round(const EncodeTile& tile, const DeviceTilePlan& plan);

// What the device's quantising does, on the host: block `job.block`'s
// floats from `planes` (the DWT's output) quantised into `out` (its input
// buffer) as quantise_block would, and what quantising found. The kernel runs the
// same per-sample rules (quant/quantize.h) and adds the energy in the same
// order.
quant::QuantizationError quantise_on_host(const QuantiseJob& job, const float* planes, int32_t* out);

}  // namespace mallat::codec
