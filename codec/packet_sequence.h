// B.12: the order of the packets of a tile. A packet is named by its layer,
// resolution, component and precinct; each appears exactly once.
#pragma once

#include <vector>

#include "codec/params.h"
#include "codec/tile_structure.h"

namespace mallat::codec {

struct PacketId {
  int layer = 0, resolution = 0, component = 0, precinct = 0;
};

// The packets of `tile` with `layers` layers in progression `order`
// (B.12.1.1 - B.12.1.5), or in the progression volumes of `changes` (POC,
// B.12.2) when non-empty, each packet once.
std::vector<PacketId> packet_sequence(const TileStructure& tile, ProgressionOrder order, int layers,
                                      const std::vector<ProgressionChange>& changes = {});

}  // namespace mallat::codec
