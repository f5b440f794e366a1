#include "codec/tier2/tile_packets.h"

#include <algorithm>

namespace mallat::codec {

Status open_tile_packets(const MainHeader& main, const Tile& tile, std::span<const uint8_t> stream,
                         const TileCodingParameters& params, const TileLayout& layout, TilePackets& out,
                         ThreadPool* pool) {
  // The tile's packet data: its tile-parts' data in order (a packet may not
  // span tile-parts, but concatenation keeps packets in sequence); a single
  // tile-part's data is read where it lies.
  for (const TilePartHeader& part : tile.parts) {
    const size_t end = std::min(stream.size(), part.data_offset + part.data_length);
    const auto bytes = part.data_offset < end ? stream.subspan(part.data_offset, end - part.data_offset)
                                              : std::span<const uint8_t>();
    if (tile.parts.size() == 1) {
      out.data = bytes;
    } else {
      out.joined.insert(out.joined.end(), bytes.begin(), bytes.end());
      out.data = out.joined;
    }
    // Packed headers from PPT, or from PPM as the reader handed them to the
    // tile-parts in codestream order (A.7.4); never both.
    out.headers.insert(out.headers.end(), part.ppt.begin(), part.ppt.end());
    out.headers.insert(out.headers.end(), part.ppm.begin(), part.ppm.end());
    out.lengths.insert(out.lengths.end(), part.plt.begin(), part.plt.end());
  }
  out.packed_headers = !out.headers.empty() || !main.ppm.empty();

  MALLAT_ASSIGN_OR_RETURN(out.sequence,
                          packet_order(layout, params.style.layers, params.style.order, params.progression_changes));
  MALLAT_ASSIGN_OR_RETURN(out.precincts, TilePrecincts::create(layout, params.components, pool));
  return Status::Ok();
}

void read_opened_packets(const TileCodingParameters& params, int decode_layers,
                         const std::function<std::string(size_t n, size_t pos)>& describe, TilePackets& out,
                         std::vector<std::string>& warnings, const std::function<bool(const PacketId&)>& wanted,
                         const std::function<void(size_t packets)>& read) {
  TilePacketsToRead what;
  what.sequence = out.sequence;
  what.data = out.data;
  what.headers = out.headers;
  what.packed_headers = out.packed_headers;
  what.sop = params.style.sop;
  what.decode_layers = decode_layers;
  what.describe = describe;
  what.lengths = out.lengths;
  what.wanted = wanted;
  what.read = read;
  if (read_packets(out.precincts, what, out.segments, warnings)) {
    // Reset in place, not made anew: a decoder may read the slots' places
    // meanwhile (open_tile_packets).
    out.precincts.reset();
    what.lengths = {};
    read_packets(out.precincts, what, out.segments, warnings);
  }
}

Status read_tile_packets(const MainHeader& main, const Tile& tile, std::span<const uint8_t> stream,
                         const TileCodingParameters& params, const TileLayout& layout, int decode_layers,
                         const std::function<std::string(size_t n, size_t pos)>& describe, TilePackets& out,
                         std::vector<std::string>& warnings, const std::function<bool(const PacketId&)>& wanted) {
  MALLAT_RETURN_IF_ERROR(open_tile_packets(main, tile, stream, params, layout, out));
  read_opened_packets(params, decode_layers, describe, out, warnings, wanted, nullptr);
  return Status::Ok();
}

}  // namespace mallat::codec
