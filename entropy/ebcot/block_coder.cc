// The Part 1 block coder (Annex D) behind the BlockEncoder / BlockDecoder
// interface: encode_code_block and decode_code_block in the CPU coders'
// frame (cpu_block_coder.h).
#include "entropy/block_coder.h"
#include "entropy/cpu_block_coder.h"

namespace mallat::entropy {

std::unique_ptr<BlockEncoder> make_ebcot_block_encoder() {
  return detail::make_cpu_block_encoder("ebcot", [](const BlockToEncode& b) {
    return encode_code_block(b.coefficients, b.orientation, b.num_bitplanes, b.style, b.fraction_bits);
  });
}

std::unique_ptr<BlockDecoder> make_ebcot_block_decoder() {
  return detail::make_cpu_block_decoder("ebcot", [](const CodeBlockToDecode& in, PlaneView<int32_t> out) {
    return decode_code_block(in, out);
  });
}

}  // namespace mallat::entropy
