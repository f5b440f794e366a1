// One code-block's copy from the DWT's packed output into Tier-1's batch
// (device_tile_plan.h), plain data that the device's gather kernels read
// (codec/stages/cuda/forward_kernels.cu).
#pragma once

#include <cstdint>

#include "quant/quantize.h"

namespace mallat::codec {

// `height` rows of `width` samples from `source` (in a buffer of rows of
// `pitch` samples) to `target`, row after row without stride (T1DeviceJob's
// layout). Offsets count samples.
struct GatherJob {
  uint64_t source = 0;
  uint64_t target = 0;
  uint32_t pitch = 0;
  uint16_t width = 0;
  uint16_t height = 0;
};

// A 9/7 block's gather: its floats quantised on the way (Annex E,
// quantize_dead_zone's rule) into Tier-1's values, and what quantising
// found (clipped samples, the energy with nothing sent) kept as
// tile.quantisation[block].
struct QuantiseJob {
  GatherJob at;
  quant::DeadZoneRule rule;
  uint32_t block = 0;
};

}  // namespace mallat::codec
