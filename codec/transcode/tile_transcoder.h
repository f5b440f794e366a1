// One tile of a transcode (codec/api/transcode.h): its packets read as the
// decoder reads them (tier2/tile_packets.h), every code-block decoded to its
// quantisation indices by the coder it was written with and coded again by
// the target coder, and the packets written again in the same progression
// (tier2/packet_writer.h).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "codec/api/transcode.h"
#include "codec/codestream/codestream_header.h"
#include "codec/tier2/packet_writer.h"
#include "common/status.h"
#include "common/thread_pool.h"

namespace mallat::codec {

// The code-block style (A.6.1 Table A.19, 15444-15 Table A.4) that a
// transcode writes for `source`: Part 1 keeps every Part 1 mode switch and
// drops the HT bits; HT sets bit 6 and keeps only VSC (bit 3), the one mode
// switch the HT coder's SigProp pass follows (so Part 1 -> HT -> Part 1
// loses the other mode switches, which change the bytes, not the samples).
CodeBlockStyle transcoded_style(CodeBlockStyle source, BlockCoder target);

// What one tile became.
struct TranscodedTile {
  std::vector<uint8_t> data;      // the packets (SOP, headers unless packed, bodies)
  std::vector<uint8_t> headers;   // the packed headers, when asked for
  std::vector<PacketBytes> packets;
  int64_t code_blocks = 0;        // code-blocks with passes, recoded
  int64_t mid_plane_code_blocks = 0;  // of those, ended inside a bit-plane in another coder
};

// Transcodes tile `tile` of the codestream `stream` that `cs` was parsed
// from. Packets damaged in the source stop its reading (warnings get why);
// what came before is transcoded.
Result<TranscodedTile> transcode_tile(const Codestream& cs, const Tile& tile, std::span<const uint8_t> stream,
                                      BlockCoder target, bool packed_headers, ThreadPool& pool,
                                      std::vector<std::string>& warnings);

}  // namespace mallat::codec
