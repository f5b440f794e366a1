#include "entropy/cuda/device_block_coders.h"

#include "entropy/cuda/device_block_decoder.h"
#include "entropy/cuda/device_block_encoder.h"
#include "entropy/device_coders.h"

namespace mallat::entropy::cuda {

DeviceBlockEncoderStart device_block_encoder_start(BlockCoderKind coder) {
  switch (coder) {
    case BlockCoderKind::kEbcot:
    case BlockCoderKind::kHt:
      return make_t1_device_block_encoder;
  }
  return {};
}

DeviceBlockDecoderStart device_block_decoder_start(BlockCoderKind coder) {
  switch (coder) {
    case BlockCoderKind::kEbcot:
    case BlockCoderKind::kHt:
      return make_t1_device_block_decoder;
  }
  return {};
}

DeviceBlockEncoders device_block_encoders() {
  DeviceBlockEncoders devices;
  for (size_t c = 0; c < kBlockCoderKinds; ++c) {
    const auto coder = static_cast<BlockCoderKind>(c);
    if (device_encodes(coder)) devices.start[c] = device_block_encoder_start(coder);
  }
  return devices;
}

DeviceBlockDecoders device_block_decoders() {
  DeviceBlockDecoders devices;
  for (size_t c = 0; c < kBlockCoderKinds; ++c) {
    const auto coder = static_cast<BlockCoderKind>(c);
    if (device_decodes(coder)) devices.start[c] = device_block_decoder_start(coder);
  }
  return devices;
}

}  // namespace mallat::entropy::cuda
