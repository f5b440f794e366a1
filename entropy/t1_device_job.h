// One code-block of a Tier-1 device batch as the kernel reads it
// (entropy/cuda/t1_encode_kernel.cuh); the host lays jobs out in
// t1_device_batch.h. Plain data, no CUDA.
#pragma once

#include <cstdint>

namespace mallat::entropy {

// One code-block of a device batch: its samples are `width` x `height`, row
// after row, from `coefficient_offset` in the batch's coefficient buffer.
struct T1DeviceJob {
  uint64_t coefficient_offset = 0;
  uint16_t width = 0;
  uint16_t height = 0;
  uint8_t orientation = 0;     // BandOrientation
  uint8_t num_bitplanes = 0;   // Mb
  uint8_t style = 0;           // CodeBlockStyle::to_byte()
  uint8_t fraction_bits = 0;
};

}  // namespace mallat::entropy
