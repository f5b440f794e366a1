// The hybrid coders' tests (hybrid_block_encoder_test.cc,
// hybrid_block_decoder_test.cc): options that fix the device's share.
#pragma once

#include "entropy/block_coder.h"

namespace mallat::entropy::testing {

// The device takes `share` of a batch's samples, unadapted, from the first
// block on; `wait`: a batch waits for the device's start-up.
inline DeviceCoderOptions options_with(double share, bool wait = true) {
  DeviceCoderOptions o;
  o.device_share = share;
  o.wait_for_device = wait;
  o.min_device_blocks = 0;
  o.adapt = false;
  return o;
}

}  // namespace mallat::entropy::testing
