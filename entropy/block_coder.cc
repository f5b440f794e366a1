// The block coder factory: the code-block style decides the coder.
#include "entropy/block_coder.h"

#include "entropy/cpu_block_coder.h"
#include "entropy/hybrid/hybrid_block_decoder.h"
#include "entropy/hybrid/hybrid_block_encoder.h"

#ifdef MALLAT_HAVE_CUDA
#include "entropy/cuda/device_block_coders.h"
#endif

namespace mallat::entropy {

BlockCoderKind block_coder_kind(const CodeBlockStyle& style) {
  return style.ht ? BlockCoderKind::kHt : BlockCoderKind::kEbcot;
}

Result<std::unique_ptr<BlockEncoder>> make_block_encoder(const CodeBlockStyle& style) {
  if (block_coder_kind(style) == BlockCoderKind::kHt) return make_ht_block_encoder();
  return make_ebcot_block_encoder();
}

Result<EncodedCodeBlock> encode_block_here(const BlockToEncode& block) {
  return detail::one_block_encoder(block_coder_kind(block.style))(block);
}

Status device_block_encoder_built() {
#ifdef MALLAT_HAVE_CUDA
  return Status::Ok();
#else
  return unsupported("Tier-1 on the GPU: this build has no CUDA (configure with -DMALLAT_CUDA=ON)");
#endif
}

Result<std::unique_ptr<BlockEncoder>> make_device_block_encoder(const DeviceCoderOptions& options) {
  MALLAT_RETURN_IF_ERROR(device_block_encoder_built());
#ifdef MALLAT_HAVE_CUDA
  return make_hybrid_block_encoder(cuda::device_block_encoders(), options);
#else
  (void)options;
  return unsupported("unreachable");
#endif
}

Result<std::unique_ptr<BlockDecoder>> make_device_block_decoder(const DeviceCoderOptions& options) {
  MALLAT_RETURN_IF_ERROR(device_block_encoder_built());
#ifdef MALLAT_HAVE_CUDA
  return make_hybrid_block_decoder(cuda::device_block_decoders(), options);
#else
  (void)options;
  return unsupported("unreachable");
#endif
}

Result<std::unique_ptr<BlockDecoder>> make_block_decoder(const CodeBlockStyle& style) {
  if (block_coder_kind(style) == BlockCoderKind::kHt) return make_ht_block_decoder();
  return make_ebcot_block_decoder();
}

}  // namespace mallat::entropy
