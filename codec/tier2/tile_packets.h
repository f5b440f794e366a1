// Tier-2 of one tile as a reader sees it: the tile's packet data and packed
// headers gathered from its tile-parts, its packets read (packet_reader.h)
// into per code-block segments. The decoder and the transcoder both start a
// tile here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "codec/codestream/codestream_header.h"
#include "codec/codestream/effective_params.h"
#include "codec/tier2/packet_reader.h"
#include "codec/tier2/progression.h"
#include "codec/tier2/tile_geometry.h"
#include "codec/tier2/tile_precincts.h"
#include "common/status.h"

namespace mallat::codec {

// What the packets of one tile gave. `data` and the segments' pieces point
// into the stream or into `joined`: keep this where it was filled (moving
// it keeps them valid, copying it does not).
struct TilePackets {
  std::span<const uint8_t> data;    // the tile's packet data, its tile-parts' joined
  std::vector<uint8_t> joined;      // that data when it had to be copied (several tile-parts)
  std::vector<uint8_t> headers;     // PPT / PPM packed headers, joined (A.7.4, A.7.5)
  bool packed_headers = false;
  std::vector<PacketId> sequence;          // B.12: the tile's packets in order
  TilePrecincts precincts;                 // the code-blocks by slot, Tier-2's state
  std::vector<CodeBlockSegments> segments;  // per slot: what the packets gave
  std::vector<uint32_t> lengths;            // A.7.3: the packets' PLT lengths, its tile-parts' joined
};

// Reads the packets of `tile` of the codestream `stream` (what `main` and
// `tile` were parsed from) in its progression, keeping the contributions of
// the first `decode_layers` layers. `describe(n, pos)` names packet n that
// starts at byte pos of the packet data in messages. Damage is appended to
// `warnings` and reading stops there (packet_reader.h); errors are for
// parameters that give no packet order or layout. `wanted`, when given,
// names the precincts a decoder needs: with PLT (A.7.3) the packets of the
// others are stepped over unread (packet_reader.h).
Status read_tile_packets(const MainHeader& main, const Tile& tile, std::span<const uint8_t> stream,
                         const TileCodingParameters& params, const TileLayout& layout, int decode_layers,
                         const std::function<std::string(size_t n, size_t pos)>& describe, TilePackets& out,
                         std::vector<std::string>& warnings,
                         const std::function<bool(const PacketId&)>& wanted = nullptr);

// read_tile_packets in two steps, so that a decoder may lay out the tile's
// code-blocks (out.precincts' slots) while its packets are read. The first
// gathers the tile's data, packed headers and lengths and makes its packet
// order and fresh precincts: no packet read (out.segments are the second
// step's to fill; read none of them before it says so).
// `pool`, where given, makes the precincts on it (TilePrecincts::create).
Status open_tile_packets(const MainHeader& main, const Tile& tile, std::span<const uint8_t> stream,
                         const TileCodingParameters& params, const TileLayout& layout, TilePackets& out,
                         ThreadPool* pool = nullptr);
// The second reads the packets of `out` (as open_tile_packets left it), as
// read_tile_packets does. `read`, when given, is told after each packet
// how many of the sequence are read (n + 1 after packet n): the code-blocks
// of a precinct whose packets are all among them have their segments final
// (read_packets' `read`). Not told while PLT lengths locate the packets
// (they may be read again without them); the code-blocks are final once
// this returns. Of `out` it writes the precincts' coders and the segments,
// never the slots' places.
void read_opened_packets(const TileCodingParameters& params, int decode_layers,
                         const std::function<std::string(size_t n, size_t pos)>& describe, TilePackets& out,
                         std::vector<std::string>& warnings, const std::function<bool(const PacketId&)>& wanted,
                         const std::function<void(size_t packets)>& read);

}  // namespace mallat::codec
