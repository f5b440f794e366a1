#include "codec/tier2/tile_packets.h"

#include <algorithm>

namespace mallat::codec {

Status read_tile_packets(const MainHeader& main, const Tile& tile, std::span<const uint8_t> stream,
                         const TileCodingParameters& params, const TileLayout& layout, int decode_layers,
                         const std::function<std::string(size_t n, size_t pos)>& describe, TilePackets& out,
                         std::vector<std::string>& warnings, const std::function<bool(const PacketId&)>& wanted) {
  std::vector<uint32_t> lengths;
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
    lengths.insert(lengths.end(), part.plt.begin(), part.plt.end());
  }
  out.packed_headers = !out.headers.empty() || !main.ppm.empty();

  MALLAT_ASSIGN_OR_RETURN(out.sequence,
                          packet_order(layout, params.style.layers, params.style.order, params.progression_changes));
  MALLAT_ASSIGN_OR_RETURN(out.precincts, TilePrecincts::create(layout, params.components));
  TilePacketsToRead what;
  what.sequence = out.sequence;
  what.data = out.data;
  what.headers = out.headers;
  what.packed_headers = out.packed_headers;
  what.sop = params.style.sop;
  what.decode_layers = decode_layers;
  what.describe = describe;
  what.lengths = lengths;
  what.wanted = wanted;
  if (read_packets(out.precincts, what, out.segments, warnings)) {
    MALLAT_ASSIGN_OR_RETURN(out.precincts, TilePrecincts::create(layout, params.components));
    what.lengths = {};
    read_packets(out.precincts, what, out.segments, warnings);
  }
  return Status::Ok();
}

}  // namespace mallat::codec
