// B.9, B.10, A.8: a decoder's packets of one tile. Reads each packet header
// of the progression (from the packet data, or from the PPM / PPT packed
// headers) and gathers, per code-block, the pieces of its codeword segments
// for Tier-1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "codec/tier2/progression.h"
#include "codec/tier2/tile_precincts.h"
#include "common/inline_vector.h"

namespace mallat::codec {

// Everything Tier-2 gathers for one code-block across the packets.
// Its lists hold their first items in place: a tile has thousands of
// code-blocks, nearly all with one piece and one or two segments.
struct CodeBlockSegments {
  // The block's codeword bytes: one piece of the tile's packet data per
  // packet that contributed; Tier-1 joins them when there are several.
  InlineVector<std::span<const uint8_t>, 1> pieces;
  InlineVector<uint32_t, 2> segment_lengths;  // B.10.7: one per codeword segment
  int passes = 0;
  // passes_by_layer[l]: the passes of layers 0..l, for the layers before
  // the last that added some; from that layer on, `passes` (a transcoder
  // keeps each block's layers). Empty when its last contribution is in
  // layer 0.
  InlineVector<int, 2> passes_by_layer;
  int zero_bitplanes = 0;                 // B.10.5
  bool ht = false;                        // an HT code-block (15444-15; per block under HTMIXED)
};

// Where one tile's packets are.
struct TilePacketsToRead {
  std::span<const PacketId> sequence;   // B.12: the tile's packets in order
  std::span<const uint8_t> data;        // the tile's packet data, its tile-parts' joined
  std::span<const uint8_t> headers;     // PPM / PPT packed headers (A.7.4, A.7.5)
  bool packed_headers = false;          // headers come from `headers`, not `data`
  bool sop = false;                     // Scod: an SOP may precede each packet (A.8.1)
  int decode_layers = 0;                // contributions of later layers are skipped
  // Names packet n starting at byte pos of `data` in messages.
  std::function<std::string(size_t n, size_t pos)> describe;
  // A.7.3: each packet's length from PLT (SOP, header and body), in
  // sequence order; empty when unknown. With them, the packets of precincts
  // that `wanted` refuses are stepped over unread (their code-blocks get
  // nothing); without them every packet header is read. Each packet read is
  // checked against its length (read_packets).
  std::span<const uint32_t> lengths;
  std::function<bool(const PacketId&)> wanted;
  // When set, and the packets are not located by `lengths`, told after
  // each packet n that n + 1 packets are read: the code-blocks of the
  // precincts all of whose packets are among them have their final
  // segments in `blocks` (a reader on another thread may take them).
  std::function<void(size_t packets)> read;
};

// Reads the packets into blocks[slot] (resized to precincts.code_blocks()),
// slots as in TilePrecincts. `precincts` must be fresh. Damage (a malformed
// SOP or header, a truncated body, data that ends early) stops the reading
// with a warning appended to `warnings`; what was read before it is kept,
// so the tile decodes as far as its data goes. Returns true, with a
// warning, when a packet read disagrees with its PLT length: the lengths
// cannot be trusted and the packets stepped over by them were maybe not
// where they said, so the caller reads the tile again, with fresh
// precincts and without lengths.
bool read_packets(TilePrecincts& precincts, const TilePacketsToRead& what, std::vector<CodeBlockSegments>& blocks,
                  std::vector<std::string>& warnings);

}  // namespace mallat::codec
