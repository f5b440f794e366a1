// B.12: the order of the packets of a tile. Each packet is named by its
// layer, resolution, component and precinct (the precinct's raster index in
// Resolution::precincts). Five progression orders (B.12.1) and progression
// changes (POC, A.6.6 / B.12.2) are supported; packets already emitted by an
// earlier progression volume are not emitted again.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "codec/codestream/params.h"
#include "codec/tier2/tile_geometry.h"
#include "common/status.h"

namespace mallat::codec {

struct PacketId {
  int layer = 0;
  int resolution = 0;
  int component = 0;
  int precinct = 0;
  friend bool operator==(const PacketId&, const PacketId&) = default;
};

struct ProgressionOptions {
  // After the POC volumes, emit every packet none of them covered, in the
  // COD order. Off: the volumes alone decide (what a decoder reading a
  // stream with POC wants; an encoder writing a POC should cover everything).
  bool complete_with_default_order = false;
  int64_t max_packets = int64_t{1} << 26;  // refused beyond this (hostile headers)
};

// The packets of one tile in the order they appear in the codestream.
// changes empty: one volume, all layers/resolutions/components, in `order`.
// Otherwise one volume per change (layers [0, LYEpoc), resolutions [RSpoc,
// REpoc), components [CSpoc, CEpoc), clamped to the tile), in the change's order.
// Resolutions a component does not have (r > its NL) and empty resolutions
// are skipped.
Result<std::vector<PacketId>> packet_order(const TileLayout& layout, int layers,
                                           ProgressionOrder order,
                                           std::span<const ProgressionChange> changes = {},
                                           const ProgressionOptions& options = {});

// B.12.1.3-B.12.1.5: the reference-grid position at which the position-driven
// orders reach precinct p of (component c, resolution r): the precinct's
// top-left corner on the reference grid, x = XRsiz * 2^(PPx + NL - r) * (its
// column on the precinct grid), clipped to the tile's top-left (tx0, ty0).
struct GridPoint {
  int64_t x = 0, y = 0;
};
GridPoint precinct_position(const TileLayout& layout, int c, int r, int p);

}  // namespace mallat::codec
