// The value types of the public API (codec/codec.h) that the codestream's
// parameters share: progression, code-block style, POC, ROI, the container
// and the tile-part division an encoder is asked for. Plain values only.
#pragma once

#include <cstdint>

#include "entropy/code_block_style.h"

namespace mallat::codec {

// A.6.1, Table A.16: progression order of packets.
enum class ProgressionOrder : uint8_t { kLRCP = 0, kRLCP = 1, kRPCL = 2, kPCRL = 3, kCPRL = 4 };

// A.6.1, Table A.19: the code-block style (SPcod/SPcoc), the mode switches of
// D.6. One definition, Tier-1's: codec and entropy share it.
using entropy::CodeBlockStyle;

// A.6.6: one progression change of a POC.
struct ProgressionChange {
  int resolution_start = 0;   // RSpoc
  int component_start = 0;    // CSpoc
  int layer_end = 0;          // LYEpoc
  int resolution_end = 0;     // REpoc (exclusive)
  int component_end = 0;      // CEpoc (exclusive)
  ProgressionOrder order = ProgressionOrder::kLRCP;
  friend bool operator==(const ProgressionChange&, const ProgressionChange&) = default;
};

// A.6.3: RGN, max-shift region of interest for one component.
struct RegionOfInterest {
  int component = 0;
  int shift = 0;  // SPrgn
  friend bool operator==(const RegionOfInterest&, const RegionOfInterest&) = default;
};

// Annex I: what a file holds, a raw codestream (Annex A) or a JP2 file;
// 15444-15 Annex D's JPH file is JP2's boxes under the 'jph ' brand (a
// reader finds either as kJp2).
enum class Container { kUnknown, kCodestream, kJp2, kJph };

// -TP R|L|C (A.4.2): where an encoder starts a new tile-part.
enum class TilePartDivision { kNone, kResolution, kLayer, kComponent };

}  // namespace mallat::codec
