// The block coder factory: the code-block style decides the coder.
#include "entropy/block_coder.h"

namespace mallat::entropy {
namespace {

// 15444-15 gives HT code-blocks their own coder (cleanup, SigProp and
// MagRef passes over MEL, VLC and MagSgn segments); their bytes mean
// nothing to Annex D's, so they are refused by name.
Status ht_unsupported() {
  return unsupported("HT code-blocks (15444-15): this build has only the Part 1 (EBCOT) block coder");
}

}  // namespace

BlockCoderKind block_coder_kind(const CodeBlockStyle& style) {
  return style.ht ? BlockCoderKind::kHt : BlockCoderKind::kEbcot;
}

Result<std::unique_ptr<BlockEncoder>> make_block_encoder(const CodeBlockStyle& style) {
  if (block_coder_kind(style) == BlockCoderKind::kHt) return ht_unsupported();
  return make_ebcot_block_encoder();
}

Result<std::unique_ptr<BlockDecoder>> make_block_decoder(const CodeBlockStyle& style) {
  if (block_coder_kind(style) == BlockCoderKind::kHt) return ht_unsupported();
  return make_ebcot_block_decoder();
}

}  // namespace mallat::entropy
