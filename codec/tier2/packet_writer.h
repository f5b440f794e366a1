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
  // A piece may hold the end of one packet and the start of the next. One
  // call at a time, in order; on a pool, from any of its threads.
  const std::function<Status(std::span<const uint8_t>)>* data_sink = nullptr;
  // When set (with neither data nor data_sink, the headers not packed),
  // each packet's header is kept there too.
  KeptHeaders* kept_headers = nullptr;
};

// How a tile's packets are shared out on a pool (write_packets,
// write_packet_data): each subband of each precinct on one thread, its
// blocks set up and its part of the precinct's packets coded in order
// (its tag trees and block states are its own and carry from layer to
// layer, B.10.2), the subbands at once; then each packet's header joined
// from its subbands' parts, the packets at once; then the data laid out
// from the packets' sizes and copied in ranges on the pool.
struct PacketPoolSplit {
  // Below this many code-blocks a tile's packets are coded and written on
  // one thread: the pool is handed the tile four times (the precincts
  // copied, their subbands coded, their headers joined, the data copied), at
  // some tens of microseconds each, while the one-thread loop takes a
  // fraction of a microsecond per block.
  static constexpr size_t kLeastCodeBlocks = 1024;
  // Data that go to a sink are gathered into chunks of at most this many
  // bytes, each handed over whole: the writer holds one chunk (a huge
  // page), not a copy of the tile's packets.
  static constexpr uint64_t kChunkBytes = uint64_t{2} << 20;
  // Each pool item copies this many bytes of the data, whatever the
  // packets' and blocks' sizes (one resolution's packet may hold most of a
  // tile).
  static constexpr uint64_t kItemBytes = uint64_t{64} << 10;
  size_t least_code_blocks = kLeastCodeBlocks;
  uint64_t chunk_bytes = kChunkBytes;
  uint64_t item_bytes = kItemBytes;
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
  // A pool, if any: where the tile has split.least_code_blocks the
  // precincts' subbands are set up and coded on it, their headers joined on
  // it and their data copied on it (PacketPoolSplit); `block` is then
  // called from its threads, and the pointers it gives must hold until the
  // call returns.
  ThreadPool* pool = nullptr;
  PacketPoolSplit split;
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
