// The device block coders that the whole-tile runner (codec/stages/cuda/)
// drives on its own stream: the runner includes this header, not a coder's
// own. Encoding: a tile's jobs uploaded over coefficients the runner already
// put on the device, coded, and packed down; decoding: a tile's codeword
// bytes up, decoded, the samples and results left on the device for the
// runner's reconstruction.
//
// The runner's tiles are those codec/stages/device_rule.h takes, whose
// blocks are all of one coder with a device coder (entropy/device_coders.h).
// The Tier-1 device coders take a batch of either coder's blocks on the
// same jobs, slots and results (entropy/t1_encode_batch.h,
// entropy/t1_decode_batch.h), running that coder's kernels
// (entropy/cuda/ebcot/, entropy/cuda/ht/).
#pragma once

#include "entropy/cuda/t1_device_decoder.h"
#include "entropy/cuda/t1_device_encoder.h"

namespace mallat::entropy::cuda {

using TileEncoder = T1DeviceEncoder;
using TileEncodedBatch = T1DeviceBatchView;  // what TileEncoder::download_packed gives
using TileDecoder = T1DeviceDecoder;

}  // namespace mallat::entropy::cuda
