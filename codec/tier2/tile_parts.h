// Dividing a tile's packets into tile-parts (A.4.2): as opj_compress's -TP,
// a new tile-part begins wherever the packets' resolution, layer or
// component changes along the progression.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "codec/api/coding_types.h"
#include "codec/tier2/progression.h"
#include "common/status.h"

namespace mallat::codec {

// The index of the first packet of each tile-part (the first is 0; one
// tile-part when `packets` is empty). More than 255 tile-parts is an error:
// TPsot has 8 bits and TNsot = 255 is the most it can say (A.4.2).
Result<std::vector<size_t>> tile_part_starts(std::span<const PacketId> packets, TilePartDivision division);

}  // namespace mallat::codec
