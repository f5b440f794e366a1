// A 9/7 code-block's quantising on the device (device_tile_plan.h), plain
// data that the device's quantising kernel reads
// (codec/stages/cuda/forward_kernels.cu).
#pragma once

#include <cstdint>

#include "quant/quantize.h"

namespace mallat::codec {

// `height` rows of `width` floats from `source` in the DWT's output buffer,
// quantised (Annex E, quantize_dead_zone's rule) into Tier-1's values at
// `target` in the DWT's input buffer, both in rows of `pitch` (the plane's
// pitch: the block lies where it lay); what quantising found (clipped
// samples, the energy with nothing sent) is kept as tile.quantisation[block].
// Offsets count samples.
struct QuantiseJob {
  uint64_t source = 0;
  uint64_t target = 0;
  uint32_t pitch = 0;
  uint16_t width = 0;
  uint16_t height = 0;
  quant::DeadZoneRule rule;
  uint32_t block = 0;
};

}  // namespace mallat::codec
