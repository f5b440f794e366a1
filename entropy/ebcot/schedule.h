// Which pass is which (D.3: the first bit-plane has only a cleanup pass, then
// significance propagation, magnitude refinement, cleanup), and where the
// mode switches start raw coding and end codeword segments (D.6, Table D.9).
#pragma once

#include "entropy/code_block_style.h"

namespace mallat::entropy {

enum class PassType { kSignificance = 0, kRefinement = 1, kCleanup = 2 };

constexpr PassType pass_type(int pass) {
  return pass == 0 ? PassType::kCleanup : static_cast<PassType>((pass - 1) % 3);
}

// Bit-planes below the most significant coded one that `pass` works on.
constexpr int pass_plane_offset(int pass) { return (pass + 2) / 3; }

// The passes a block of `planes` magnitude bit-planes codes under a pass
// limit (0: none; SharedT1Block::pass_limit): 3 * planes - 2, or fewer.
constexpr int limited_passes(int planes, int pass_limit) {
  const int all = planes > 0 ? 3 * planes - 2 : 0;
  return pass_limit > 0 && pass_limit < all ? pass_limit : all;
}

// D.6: under BYPASS the significance and refinement passes after the fourth
// cleanup pass (pass index 9) are coded raw.
constexpr bool pass_is_raw(const CodeBlockStyle& style, int pass) {
  return style.bypass && pass >= 10 && pass_type(pass) != PassType::kCleanup;
}

// Table D.9: the pass ends a codeword segment (the block's last pass always
// does too; callers handle that). Under BYPASS: the fourth cleanup pass, and
// after it every refinement (raw) and cleanup (MQ) pass.
constexpr bool pass_ends_segment(const CodeBlockStyle& style, int pass) {
  if (style.termall) return true;
  if (!style.bypass) return false;
  return pass == 9 || (pass > 9 && pass_type(pass) != PassType::kSignificance);
}

}  // namespace mallat::entropy
