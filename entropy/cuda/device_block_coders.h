// The device coders this build has, by block coder: the registry that
// make_device_block_encoder / _decoder (entropy/block_coder.cc) read. Each
// coder's device side implements DeviceBlockEncoder / DeviceBlockDecoder
// (entropy/hybrid/device_block_coder.h); EBCOT's and HT's are
// device_block_encoder.h and device_block_decoder.h (one Tier-1 batch layer
// for both, entropy/t1_encode_batch.h). Another coder's would add its starts
// here and switch its row on in entropy/device_coders.h.
// Plain C++; built only with CUDA.
#pragma once

#include "entropy/block_coder.h"
#include "entropy/hybrid/device_block_coder.h"

namespace mallat::entropy::cuda {

// How to start `coder`'s device encoder or decoder; empty for a coder
// without one.
DeviceBlockEncoderStart device_block_encoder_start(BlockCoderKind coder);
DeviceBlockDecoderStart device_block_decoder_start(BlockCoderKind coder);

// Every coder's starts, for the coders entropy/device_coders.h switches on.
DeviceBlockEncoders device_block_encoders();
DeviceBlockDecoders device_block_decoders();

}  // namespace mallat::entropy::cuda
