// A coding pass's distortion decrease (the sum of its samples' squared-error
// falls, integers below 2^62 in magnitude) summed exactly, so that the sum
// does not depend on the order of its terms: the GPU's cooperative encoder
// (entropy/ebcot/formed_passes.h) adds each stripe's terms apart and joins
// them, the CPU coders add them in scan order, and both give the same
// double. Each term is split at bit 32: the high parts (signed, below 2^30)
// and the low parts (below 2^32) add up in 64-bit integers for any block
// of A.6.1 (at most 4096 samples, one term each per pass). Host and device
// code (host_device.h).
#pragma once

#include <cstdint>

#include "entropy/host_device.h"

namespace mallat::entropy::detail {

struct DistortionSum {
  int64_t high = 0;   // the terms' bits from 32 up (arithmetic shift)
  uint64_t low = 0;   // their bits 0..31

  MALLAT_HD void add(int64_t term) {
    high += term >> 32;
    low += static_cast<uint32_t>(term);
  }
  MALLAT_HD void add(const DistortionSum& other) {
    high += other.high;
    low += other.low;
  }
  // The sum rounded once to the nearest double: both parts are exact as
  // doubles (below 2^53) and scaling by 2^32 is exact, so the one addition
  // rounds the exact sum, with or without a fused multiply-add.
  MALLAT_HD double value() const {
    return static_cast<double>(high) * 4294967296.0 + static_cast<double>(low);
  }
};

}  // namespace mallat::entropy::detail
