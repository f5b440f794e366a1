#include "codec/packet_sequence.h"

#include <algorithm>
#include <array>
#include <cstdint>

namespace mallat::codec {

namespace {

// One precinct of one resolution of one component, with the point of the
// reference grid at which the position-driven orders (B.12.1.3 - B.12.1.5)
// reach it: the precinct's top-left corner projected onto the reference
// grid, or the tile's corner for the first row and column of precincts.
struct PrecinctEntry {
  int component, resolution, precinct;
  int64_t x, y;
};

std::vector<PrecinctEntry> precinct_entries(const TileStructure& tile) {
  std::vector<PrecinctEntry> entries;
  for (size_t c = 0; c < tile.components.size(); ++c) {
    const TileComponent& tc = tile.components[c];
    const int levels = tc.coding.levels;
    for (int r = 0; r <= levels; ++r) {
      const Resolution& res = tc.resolutions[r];
      const int64_t gx0 = dwt::floor_div_pow2(res.rect.x0, res.ppx);
      const int64_t gy0 = dwt::floor_div_pow2(res.rect.y0, res.ppy);
      for (int j = 0; j < res.precincts_high; ++j) {
        for (int i = 0; i < res.precincts_wide; ++i) {
          // Precinct origin on the resolution grid, scaled by 2^(NL - r) to
          // the tile-component grid and by the sub-sampling to the reference grid.
          const int64_t px = ((gx0 + i) << res.ppx) << (levels - r);
          const int64_t py = ((gy0 + j) << res.ppy) << (levels - r);
          PrecinctEntry e;
          e.component = static_cast<int>(c);
          e.resolution = r;
          e.precinct = j * res.precincts_wide + i;
          e.x = std::max<int64_t>(tile.rect.x0, px * tc.dx);
          e.y = std::max<int64_t>(tile.rect.y0, py * tc.dy);
          entries.push_back(e);
        }
      }
    }
  }
  return entries;
}

// The sort key of a packet in one progression order, most significant first.
std::array<int64_t, 6> order_key(ProgressionOrder order, const PrecinctEntry& e, int layer) {
  switch (order) {
    case ProgressionOrder::kLRCP: return {layer, e.resolution, e.component, e.precinct, 0, 0};
    case ProgressionOrder::kRLCP: return {e.resolution, layer, e.component, e.precinct, 0, 0};
    case ProgressionOrder::kRPCL: return {e.resolution, e.y, e.x, e.component, e.precinct, layer};
    case ProgressionOrder::kPCRL: return {e.y, e.x, e.component, e.resolution, e.precinct, layer};
    case ProgressionOrder::kCPRL: return {e.component, e.y, e.x, e.resolution, e.precinct, layer};
  }
  return {};
}

}  // namespace

std::vector<PacketId> packet_sequence(const TileStructure& tile, ProgressionOrder order, int layers,
                                      const std::vector<ProgressionChange>& changes) {
  const std::vector<PrecinctEntry> entries = precinct_entries(tile);
  std::vector<ProgressionChange> volumes = changes;
  if (volumes.empty()) {
    ProgressionChange all;
    all.layer_end = layers;
    all.resolution_end = 33;
    all.component_end = static_cast<int>(tile.components.size());
    all.order = order;
    volumes.push_back(all);
  }
  // Index of each (entry, layer) to emit every packet once across volumes.
  std::vector<uint8_t> emitted(entries.size() * static_cast<size_t>(std::max(layers, 0)), 0);
  std::vector<PacketId> sequence;
  sequence.reserve(emitted.size());
  for (const ProgressionChange& v : volumes) {
    struct Item {
      std::array<int64_t, 6> key;
      size_t entry;
      int layer;
    };
    std::vector<Item> items;
    const int layer_end = std::min(v.layer_end, layers);
    for (size_t i = 0; i < entries.size(); ++i) {
      const PrecinctEntry& e = entries[i];
      if (e.resolution < v.resolution_start || e.resolution >= v.resolution_end) continue;
      if (e.component < v.component_start || e.component >= v.component_end) continue;
      for (int l = 0; l < layer_end; ++l) {
        if (emitted[i * layers + l]) continue;
        items.push_back({order_key(v.order, e, l), i, l});
      }
    }
    std::stable_sort(items.begin(), items.end(),
                     [](const Item& a, const Item& b) { return a.key < b.key; });
    for (const Item& it : items) {
      emitted[it.entry * layers + it.layer] = 1;
      const PrecinctEntry& e = entries[it.entry];
      sequence.push_back({it.layer, e.resolution, e.component, e.precinct});
    }
  }
  return sequence;
}

}  // namespace mallat::codec
