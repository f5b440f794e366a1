// What Tier-1 needs to know about a code-block besides its samples: the
// orientation of its subband (Table D.1 picks the significance contexts by
// it) and the mode switches of the COD/COC code-block style byte (A.6.1,
// Table A.19; D.6), with the bit 15444-15 adds to it for HT code-blocks.
// The one definition: codec/ uses it as codec::CodeBlockStyle
// (codec/api/coding_types.h); to_byte/from_byte are the SPcod/SPcoc byte.
#pragma once

#include <cstdint>

#include "entropy/host_device.h"

namespace mallat::entropy {

// B.5: LL, HL (horizontally high-pass), LH (vertically high-pass), HH.
enum class BandOrientation : uint8_t { kLL = 0, kHL = 1, kLH = 2, kHH = 3 };

struct CodeBlockStyle {
  bool bypass = false;                   // selective arithmetic coding bypass
  bool reset = false;                    // reset context probabilities after each pass
  bool termall = false;                  // terminate every coding pass
  bool vertical_causal = false;          // VSC: ignore the stripe below
  bool predictable_termination = false;  // ERTERM
  bool segmentation_symbols = false;     // SEGMARK: 1010 after each cleanup pass
  // 15444-15's extension of Table A.19 (its Table A.4): bit 6 says the
  // code-blocks are HT blocks, coded by the HT block coder instead of
  // Annex D's; bit 7 with it (HTMIXED) says each code-block may be either,
  // Tier-2 telling which from its first contribution (15444-15 B.3).
  bool ht = false;
  bool ht_mixed = false;

  MALLAT_HD uint8_t to_byte() const {
    return static_cast<uint8_t>(bypass | reset << 1 | termall << 2 | vertical_causal << 3 |
                                predictable_termination << 4 | segmentation_symbols << 5 | ht << 6 |
                                ht_mixed << 7);
  }
  MALLAT_HD static CodeBlockStyle from_byte(uint8_t b) {
    return {(b & 1) != 0,  (b & 2) != 0,  (b & 4) != 0, (b & 8) != 0,
            (b & 16) != 0, (b & 32) != 0, (b & 64) != 0, (b & 128) != 0};
  }
  friend bool operator==(const CodeBlockStyle&, const CodeBlockStyle&) = default;
};

}  // namespace mallat::entropy
