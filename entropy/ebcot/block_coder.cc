// The Part 1 block coder (Annex D) behind the BlockEncoder / BlockDecoder
// interface: encode_code_block and decode_code_block in the CPU coders'
// frame (cpu_block_coder.h).
#include "entropy/block_coder.h"
#include "entropy/cpu_block_coder.h"

namespace mallat::entropy {

Result<EncodedCodeBlock> detail::encode_ebcot_block(const BlockToEncode& b) {
  // distortions: whether the caller wants the passes' distortions at
  // all (block_coder.h), which the Part 1 coder honours too.
  return encode_code_block(b.coefficients, b.orientation, b.num_bitplanes, b.style, b.fraction_bits,
                           b.distortions, b.pass_limit);
}

Result<DecodedCodeBlockInfo> detail::decode_ebcot_block(const CodeBlockToDecode& in, PlaneView<int32_t> out) {
  return decode_code_block(in, out);
}

std::unique_ptr<BlockEncoder> make_ebcot_block_encoder() {
  return detail::make_cpu_block_encoder("ebcot", detail::encode_ebcot_block);
}

std::unique_ptr<BlockDecoder> make_ebcot_block_decoder() {
  return detail::make_cpu_block_decoder("ebcot", detail::decode_ebcot_block);
}

}  // namespace mallat::entropy
