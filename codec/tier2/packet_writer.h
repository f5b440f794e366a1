// B.9, B.10, A.8: an encoder's packets of one tile. For each packet of the
// progression (progression.h) it writes the optional SOP, the packet header
// (or hands it to the packed headers for PPM / PPT) and the body: the new
// coding passes' bytes of the precinct's code-blocks for that layer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "codec/tier2/progression.h"
#include "codec/tier2/tile_precincts.h"
#include "common/status.h"
#include "entropy/ebcot/ebcot.h"

namespace mallat {
class ThreadPool;
}  // namespace mallat

namespace mallat::codec {

// Per layer, per code-block: the cumulative number of passes in layers
// 0..l (what rate allocation chose; encoder/rate_control.h).
using LayerPasses = std::vector<std::vector<int>>;

// One packet as written: which it is, its bytes in the tile's packet data
// (SOP, then the header unless the headers are packed, then the body) and
// its header's bytes among the packed headers (0 unless they are packed).
struct PacketBytes {
  PacketId id;
  uint32_t data = 0;
  uint32_t header = 0;
};

// Each packet's header as a sizing coded it, where the headers are not
// packed (packed ones are in PacketOutput::headers already), so that the
// packets' data can be written later without coding the headers again
// (write_packet_data).
struct KeptHeaders {
  std::vector<uint8_t> bytes;     // one after another, in the sequence's order
  std::vector<uint32_t> lengths;  // per packet
};

// Where write_packets puts what it writes; a null pointer is not wanted.
// With packed_headers the packet headers (EPH included) go to `headers` for
// PPM or PPT (A.7.4, A.7.5) while SOP stays in the data (A.8.1).
struct PacketOutput {
  bool packed_headers = false;
  std::vector<uint8_t>* data = nullptr;
  std::vector<uint8_t>* headers = nullptr;
  std::vector<PacketBytes>* packets = nullptr;
  // When set (and data is not), the data go to it piece by piece instead,
  // so that a writer need not hold a tile's packets (encode_streamed.h).
  const std::function<Status(std::span<const uint8_t>)>* data_sink = nullptr;
  // When set (with neither data nor data_sink, the headers not packed),
  // each packet's header is kept there too.
  KeptHeaders* kept_headers = nullptr;
};

// What the packets of one tile are made of.
struct TilePacketsToWrite {
  std::span<const PacketId> sequence;   // B.12: the tile's packets in order
  const LayerPasses* layers = nullptr;  // rows indexed first_block + slot
  size_t first_block = 0;
  // The coded code-block in each slot of the TilePrecincts (tile_precincts.h);
  // the pointer holds until the next call (a block may be read from disk:
  // codec/encoder/coded_spill.h), or an error.
  std::function<Result<const entropy::EncodedCodeBlock*>(size_t slot)> block;
  bool sop = false, eph = false;        // A.8.1, A.8.2 (Scod)
  // A pool, if any: the precincts' blocks are set up on it, and where only
  // sizes are wanted (no data) their packets coded on it; `block` is then
  // called from its threads.
  ThreadPool* pool = nullptr;
};

// Writes the packets to `out` and returns their total size in bytes
// (headers included). `precincts` must be fresh (no packet coded yet): each
// code-block's first layer is set from `layers` before the first packet,
// since its inclusion tag tree needs them all (B.10.4).
Result<uint64_t> write_packets(TilePrecincts& precincts, const TilePacketsToWrite& what, const PacketOutput& out);

// The packets' data (SOP, the header unless the headers are packed, the
// body) to out.data or out.data_sink, from a sizing of the same packets by
// write_packets: `packets` what it gave for what.sequence, `kept` its
// kept_headers (null where the headers are packed). No header is coded
// again; a packet whose data would differ from its size is an error.
Status write_packet_data(const TilePrecincts& precincts, const TilePacketsToWrite& what,
                         std::span<const PacketBytes> packets, const KeptHeaders* kept, const PacketOutput& out);

}  // namespace mallat::codec
