#include "codec/tier2/tile_parts.h"

#include <string>

namespace mallat::codec {

namespace {

int divided_index(const PacketId& id, TilePartDivision division) {
  switch (division) {
    case TilePartDivision::kResolution: return id.resolution;
    case TilePartDivision::kLayer: return id.layer;
    case TilePartDivision::kComponent: return id.component;
    case TilePartDivision::kNone: break;
  }
  return 0;
}

}  // namespace

Result<std::vector<size_t>> tile_part_starts(std::span<const PacketId> packets, TilePartDivision division) {
  std::vector<size_t> starts{0};
  for (size_t i = 1; i < packets.size(); ++i) {
    if (divided_index(packets[i], division) != divided_index(packets[i - 1], division)) starts.push_back(i);
  }
  if (starts.size() > 255)
    return invalid_argument("the division gives " + std::to_string(starts.size()) +
                            " tile-parts of one tile; at most 255 (A.4.2)");
  return starts;
}

}  // namespace mallat::codec
