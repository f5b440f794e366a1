// The device block coders that the whole-tile runner (codec/stages/cuda/)
// drives on its own stream, by block coder: the runner includes this
// header, not a coder's own (entropy/cuda/ebcot/). Encoding: a tile's jobs
// uploaded over coefficients the runner already put on the device, coded,
// and packed down; decoding: a tile's codeword bytes up, decoded, the
// samples and results left on the device for the runner's reconstruction.
//
// The runner's tiles are those codec/stages/device_rule.h takes, whose
// blocks are all of one coder with a device coder (entropy/device_coders.h),
// and its planners lay out that coder's jobs (codec/stages/device_tile_plan.h,
// device_decode_plan.h): EBCOT's, the only one today. A GPU HT coder adds
// its TileBlockCoders entry here beside EBCOT's.
#pragma once

#include "entropy/block_coder.h"
#include "entropy/cuda/ebcot/device_decoder.h"
#include "entropy/cuda/ebcot/device_encoder.h"

namespace mallat::entropy::cuda {

// A coder's whole-tile device coders; none for a coder without them.
template <BlockCoderKind coder>
struct TileBlockCoders;

template <>
struct TileBlockCoders<BlockCoderKind::kEbcot> {
  using Encoder = EbcotDeviceEncoder;       // over entropy/ebcot/encode_batch.h's jobs
  using EncodedBatch = EbcotDeviceBatchView;  // what Encoder::download_packed gives
  using Decoder = EbcotDeviceDecoder;       // over entropy/ebcot/decode_batch.h's jobs
};

// The coder whose jobs the runner's planners lay out.
inline constexpr BlockCoderKind kTileCoder = BlockCoderKind::kEbcot;
using TileEncoder = TileBlockCoders<kTileCoder>::Encoder;
using TileEncodedBatch = TileBlockCoders<kTileCoder>::EncodedBatch;
using TileDecoder = TileBlockCoders<kTileCoder>::Decoder;

}  // namespace mallat::entropy::cuda
