// The HT block coder (15444-15) behind the BlockEncoder / BlockDecoder
// interface: encode_ht_code_block and decode_ht_code_block in the CPU
// coders' frame (cpu_block_coder.h). The cleanup plane and refinement come
// with each block (BlockToEncode::ht_cleanup_plane, ht_refinement), so rate
// control can code a block at several planes.
#include "entropy/block_coder.h"
#include "entropy/cpu_block_coder.h"
#include "entropy/ht/code_block.h"
#include "entropy/ht/passes.h"

namespace mallat::entropy {

Result<EncodedCodeBlock> detail::encode_ht_block(const BlockToEncode& b) {
  HtEncodeSettings settings;
  settings.cleanup_plane = b.ht_cleanup_plane;
  settings.refinement = b.ht_refinement;
  settings.lowering_share = b.ht_lowering_share;
  settings.vertical_causal = b.style.vertical_causal;
  settings.distortions = b.distortions;
  return encode_ht_code_block(b.coefficients, b.num_bitplanes, b.fraction_bits, settings);
}

Result<DecodedCodeBlockInfo> detail::decode_ht_block(const CodeBlockToDecode& in, PlaneView<int32_t> out) {
  return decode_ht_code_block(in, out);
}

std::unique_ptr<BlockEncoder> make_ht_block_encoder() {
  return detail::make_cpu_block_encoder("ht", detail::encode_ht_block);
}

std::unique_ptr<BlockDecoder> make_ht_block_decoder() {
  return detail::make_cpu_block_decoder("ht", detail::decode_ht_block);
}

const char* ht_cpu_isa_name() { return ht::cleanup_isa_name(ht::CleanupIsa::kBest); }

}  // namespace mallat::entropy
