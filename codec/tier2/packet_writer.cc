#include "codec/tier2/packet_writer.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>

#include "common/large_buffer.h"
#include "common/thread_pool.h"

namespace mallat::codec {

namespace {

// Byte lengths of the codeword-segment pieces that carry passes
// (before, before + new] of a block (B.10.7.2): each piece ends where a
// segment ends or where the layer ends; into `lengths`, whose memory a
// sizing reuses block after block.
void piece_lengths(const entropy::EncodedCodeBlock& block, CodeBlockStyle style, int before, int new_passes,
                   std::vector<uint32_t>& lengths) {
  lengths.clear();
  auto end_of = [&](int passes) { return passes == 0 ? 0u : block.passes[passes - 1].cumulative_length; };
  int at = before;
  for_each_codeword_segment_piece(style, before, new_passes, 0, [&](int piece) {
    lengths.push_back(end_of(at + piece) - end_of(at));
    at += piece;
    return true;
  });
}

// B.10.4: tells each precinct coder the layer in which each of the blocks
// in slots [from, to) is first included (TagTree::kUnknown: never) and its
// zero bit-planes.
Status set_first_layers(TilePrecincts& precincts, const TilePacketsToWrite& what, size_t from, size_t to) {
  const LayerPasses& layers = *what.layers;
  for (size_t slot = from; slot < to; ++slot) {
    const CodeBlockPlace& at = precincts.place(slot);
    PrecinctPacketCoder& coder = precincts.coder(at.component, at.resolution, at.precinct);
    const size_t first = precincts.first_slot(at.component, at.resolution, at.precinct);
    int first_layer = TagTree::kUnknown;
    for (size_t l = 0; l < layers.size(); ++l) {
      if (layers[l][what.first_block + slot] > 0) {
        first_layer = static_cast<int>(l);
        break;
      }
    }
    MALLAT_ASSIGN_OR_RETURN(const entropy::EncodedCodeBlock* block, what.block(slot));
    MALLAT_RETURN_IF_ERROR(coder.set_code_block(static_cast<int>(slot - first), first_layer, block->zero_bitplanes));
  }
  return Status::Ok();
}

// The contributions of blocks [from, to) of packet `id`'s precinct (its
// blocks' new passes, B.10.7.2) to contributions[0, to - from), each entry
// as new, its lengths' memory kept from the last packet; returns their
// body bytes.
Result<uint64_t> packet_contributions(const TilePrecincts& precincts, const TilePacketsToWrite& what,
                                      const PacketId& id, int from, int to,
                                      std::vector<CodeBlockContribution>& contributions) {
  const LayerPasses& layers = *what.layers;
  const CodeBlockStyle style = precincts.style(id.component);
  const size_t first = precincts.first_slot(id.component, id.resolution, id.precinct);
  contributions.resize(static_cast<size_t>(to - from));
  uint64_t bytes = 0;
  for (int k = from; k < to; ++k) {
    CodeBlockContribution& c = contributions[static_cast<size_t>(k - from)];
    std::vector<uint32_t> lengths = std::move(c.lengths);
    c = {};
    c.lengths = std::move(lengths);
    c.lengths.clear();
    const int before = id.layer > 0 ? layers[id.layer - 1][what.first_block + first + k] : 0;
    const int now = layers[id.layer][what.first_block + first + k];
    if (now <= before) continue;
    c.new_passes = now - before;
    MALLAT_ASSIGN_OR_RETURN(const entropy::EncodedCodeBlock* block, what.block(first + k));
    piece_lengths(*block, style, before, now - before, c.lengths);
    bytes += c.body_bytes();
  }
  return bytes;
}

// One packet's header (to `header`; its SOP marker to `sop`), from the
// precinct coder's state, which it advances (B.10); `contributions` is the
// packet's blocks' new passes, kept for writing its body. Its bytes, and
// how they fall between data and packed headers.
struct CodedPacket {
  PacketBytes sizes;
  uint64_t bytes = 0;
};

// A packet's sizes from its SOP's, header's and body's bytes.
CodedPacket sized_packet(const PacketId& id, size_t sop, size_t header, uint64_t body, bool packed_headers) {
  CodedPacket coded;
  coded.sizes = PacketBytes{id, static_cast<uint32_t>(sop + body), 0};
  if (packed_headers) {
    coded.sizes.header = static_cast<uint32_t>(header);
  } else {
    coded.sizes.data += static_cast<uint32_t>(header);
  }
  coded.bytes = body + sop + header;
  return coded;
}

Result<CodedPacket> code_packet(TilePrecincts& precincts, const TilePacketsToWrite& what, const PacketId& id,
                                uint32_t packet_index, bool packed_headers,
                                std::vector<CodeBlockContribution>& contributions, std::vector<uint8_t>& header,
                                std::vector<uint8_t>& sop) {
  PrecinctPacketCoder& coder = precincts.coder(id.component, id.resolution, id.precinct);
  MALLAT_ASSIGN_OR_RETURN(const uint64_t bytes,
                          packet_contributions(precincts, what, id, 0, coder.code_blocks(), contributions));
  header.clear();
  sop.clear();
  if (what.sop) write_sop(static_cast<uint16_t>(packet_index & 0xFFFF), sop);
  MALLAT_RETURN_IF_ERROR(coder.encode_header(id.layer, contributions, what.eph, header));
  return sized_packet(id, sop.size(), header.size(), bytes, packed_headers);
}

// Appends one packet's header to `kept`, where it is wanted.
void keep_header(const PacketOutput& out, std::span<const uint8_t> header) {
  if (!out.kept_headers || out.packed_headers) return;
  out.kept_headers->bytes.insert(out.kept_headers->bytes.end(), header.begin(), header.end());
  out.kept_headers->lengths.push_back(static_cast<uint32_t>(header.size()));
}

// Hands `put` the pieces of one packet's data in order: its SOP marker,
// its header (empty where the headers are packed), then the new passes'
// bytes of its blocks (B.9).
template <typename Put>
Status for_each_data_piece(const TilePrecincts& precincts, const TilePacketsToWrite& what, const PacketId& id,
                           std::span<const uint8_t> sop, std::span<const uint8_t> header, Put&& put) {
  const LayerPasses& layers = *what.layers;
  MALLAT_RETURN_IF_ERROR(put(sop));
  MALLAT_RETURN_IF_ERROR(put(header));
  const size_t first = precincts.first_slot(id.component, id.resolution, id.precinct);
  const int n = precincts.coder(id.component, id.resolution, id.precinct).code_blocks();
  for (int k = 0; k < n; ++k) {
    const int before = id.layer > 0 ? layers[id.layer - 1][what.first_block + first + k] : 0;
    const int now = layers[id.layer][what.first_block + first + k];
    if (now <= before) continue;
    MALLAT_ASSIGN_OR_RETURN(const entropy::EncodedCodeBlock* block, what.block(first + k));
    const uint32_t from = before == 0 ? 0 : block->passes[before - 1].cumulative_length;
    const uint32_t to = block->passes[now - 1].cumulative_length;
    MALLAT_RETURN_IF_ERROR(put(std::span<const uint8_t>(block->data).subspan(from, to - from)));
  }
  return Status::Ok();
}

// One piece of the packets' data to out.data or out.data_sink.
Status put_piece(const PacketOutput& out, std::span<const uint8_t> piece) {
  if (out.data) {
    out.data->insert(out.data->end(), piece.begin(), piece.end());
    return Status::Ok();
  }
  return piece.empty() ? Status::Ok() : (*out.data_sink)(piece);
}

// Whether any block of packet `id`'s precinct has new passes in it
// (B.10.3: else the packet is empty).
bool packet_has_passes(const TilePrecincts& precincts, const TilePacketsToWrite& what, const PacketId& id) {
  const LayerPasses& layers = *what.layers;
  const size_t first = what.first_block + precincts.first_slot(id.component, id.resolution, id.precinct);
  const size_t n = static_cast<size_t>(precincts.coder(id.component, id.resolution, id.precinct).code_blocks());
  for (size_t k = first; k < first + n; ++k) {
    if (layers[id.layer][k] > (id.layer > 0 ? layers[id.layer - 1][k] : 0)) return true;
  }
  return false;
}

// One subband's part of one packet, as a pool item coded it: its header
// bits unstuffed (PrecinctPacketCoder::encode_band), its blocks' body
// bytes, or why it failed: in finding the blocks' passes, or in their
// header (which a one-thread sizing reports after the first: it finds all
// the packet's passes first).
struct BandPart {
  std::vector<uint8_t> bits;
  uint32_t pending = 0;
  int pending_bits = 0;
  uint64_t body = 0;
  Status fetch_failed, failed;
};

// The packets sized without their data, on what.pool, in two steps. First
// each subband of each precinct (its own tag trees and blocks, B.10.2) on
// one thread: its part of each of the precinct's packets in order (its tag
// trees and block states carry from one to the next, B.10), the subbands
// at once. Then each packet's header joined from its subbands' parts
// (B.10.3: the first bit, then the parts in band order), the packets at
// once. Then their sizes and headers in the sequence's order, as the
// one-thread loop gives them.
Result<uint64_t> size_packets_on_pool(TilePrecincts& precincts, const TilePacketsToWrite& what,
                                      const PacketOutput& out) {
  const size_t count = what.sequence.size();
  std::vector<std::vector<size_t>> by_precinct;
  std::map<const PrecinctPacketCoder*, size_t> precinct_of;
  for (size_t i = 0; i < count; ++i) {
    const PacketId& id = what.sequence[i];
    const auto [at, added] = precinct_of.try_emplace(&precincts.coder(id.component, id.resolution, id.precinct),
                                                     by_precinct.size());
    if (added) by_precinct.emplace_back();
    by_precinct[at->second].push_back(i);
  }
  const auto coder_of = [&](size_t g) -> PrecinctPacketCoder& {
    const PacketId& id = what.sequence[by_precinct[g].front()];
    return precincts.coder(id.component, id.resolution, id.precinct);
  };
  // The items: each precinct's subbands, those with most code-blocks
  // first, so that the largest do not start last while the other threads
  // idle.
  struct Item {
    size_t precinct = 0;
    int band = 0, first = 0, blocks = 0;
    size_t slot = 0;  // its first block's
    Status set_up;    // set_first_layers' for its blocks
  };
  std::vector<Item> items;
  size_t covered = 0;
  for (size_t g = 0; g < by_precinct.size(); ++g) {
    const PrecinctPacketCoder& coder = coder_of(g);
    const PacketId& id = what.sequence[by_precinct[g].front()];
    const size_t slot = precincts.first_slot(id.component, id.resolution, id.precinct);
    covered += static_cast<size_t>(coder.code_blocks());
    for (int b = 0; b < coder.bands(); ++b) {
      const int first = coder.band_first_block(b);
      const int end = b + 1 < coder.bands() ? coder.band_first_block(b + 1) : coder.code_blocks();
      items.push_back({g, b, first, end - first, slot + static_cast<size_t>(first), Status::Ok()});
    }
  }
  // The blocks of precincts without a packet here (a progression that
  // leaves some out) set up too, as the one-thread loop sets up every
  // block, and first.
  Status uncovered_set_up;
  size_t uncovered_slot = SIZE_MAX;  // where uncovered_set_up failed
  if (covered < precincts.code_blocks()) {
    std::vector<uint8_t> has_packets(precincts.precincts(), 0);
    for (const std::vector<size_t>& packets : by_precinct) {
      const PacketId& id = what.sequence[packets.front()];
      has_packets[precincts.precinct_index(id.component, id.resolution, id.precinct)] = 1;
    }
    for (size_t slot = 0; slot < precincts.code_blocks() && uncovered_set_up.ok(); ++slot) {
      const CodeBlockPlace& at = precincts.place(slot);
      if (!has_packets[precincts.precinct_index(at.component, at.resolution, at.precinct)]) {
        uncovered_set_up = set_first_layers(precincts, what, slot, slot + 1);
        uncovered_slot = slot;
      }
    }
  }
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.blocks > b.blocks; });
  std::vector<int> first_part(count, 0);  // packet i's parts: parts[first_part[i]] onwards, one per band
  std::vector<uint8_t> empty(count, 1);  // per packet, set by its band 0 item
  size_t part_count = 0;
  for (size_t i = 0; i < count; ++i) {
    const PacketId& id = what.sequence[i];
    first_part[i] = static_cast<int>(part_count);
    part_count += static_cast<size_t>(precincts.coder(id.component, id.resolution, id.precinct).bands());
  }
  std::vector<BandPart> parts(part_count);
  // One pool item per thread, each taking the next subband in turn: its
  // contributions' memory serves subband after subband, as the one-thread
  // loop's serves packet after packet (a fresh list per subband would
  // allocate every block's lengths again).
  std::atomic<size_t> next{0};
  what.pool->parallel_for(std::min<int64_t>(static_cast<int64_t>(items.size()), what.pool->size()), [&](int64_t) {
    std::vector<CodeBlockContribution> contributions;
    for (size_t n = next++; n < items.size(); n = next++) {
      Item& item = items[n];
      // B.10.4: the subband's blocks' first layers, which its tag trees
      // need before its first packet.
      item.set_up = set_first_layers(precincts, what, item.slot, item.slot + static_cast<size_t>(item.blocks));
      if (!item.set_up.ok()) continue;
      PrecinctPacketCoder& coder = coder_of(item.precinct);
      for (const size_t i : by_precinct[item.precinct]) {
        const PacketId& id = what.sequence[i];
        BandPart& part = parts[static_cast<size_t>(first_part[i] + item.band)];
        Result<uint64_t> body =
            packet_contributions(precincts, what, id, item.first, item.first + item.blocks, contributions);
        // The precinct's later packets would start from a state this one
        // did not reach: the first failure in the sequence is reported.
        if (!body.ok()) {
          part.fetch_failed = body.status();
          break;
        }
        part.body = *body;
        const bool none = !packet_has_passes(precincts, what, id);
        if (item.band == 0) empty[i] = none ? 1 : 0;
        PacketBitWriter w(part.bits, false);
        part.failed = coder.encode_band(id.layer, item.band, contributions, none, w);
        if (!part.failed.ok()) break;
        part.pending = w.pending();
        part.pending_bits = w.pending_bits();
      }
    }
  });
  const auto parts_of = [&](size_t i) {
    const PacketId& id = what.sequence[i];
    const int bands = precincts.coder(id.component, id.resolution, id.precinct).bands();
    return std::span<const BandPart>(parts).subspan(static_cast<size_t>(first_part[i]), static_cast<size_t>(bands));
  };
  std::vector<CodedPacket> coded(count);
  std::vector<std::vector<uint8_t>> headers(count);
  what.pool->parallel_for(static_cast<int64_t>(count), [&](int64_t k) {
    const size_t i = static_cast<size_t>(k);
    const std::span<const BandPart> mine = parts_of(i);
    uint64_t body = 0;
    for (const BandPart& part : mine) {
      if (!part.fetch_failed.ok() || !part.failed.ok()) return;
      body += part.body;
    }
    std::vector<uint8_t>& header = headers[i];
    size_t bytes = 4;  // the first bit, pending bits, a stuffed byte's zero, EPH: at most 4 bytes more
    for (const BandPart& part : mine) bytes += part.bits.size() + part.bits.size() / 7 + 1;
    header.reserve(bytes);
    PacketBitWriter w(header);
    w.put_bit(empty[i] != 0 ? 0 : 1);
    if (empty[i] == 0)
      for (const BandPart& part : mine) w.put_unstuffed(part.bits, part.pending, part.pending_bits);
    w.flush();
    if (what.eph) {
      header.push_back(0xFF);
      header.push_back(kEphSecondByte);
    }
    coded[i] = sized_packet(what.sequence[i], what.sop ? kSopBytes : 0, header.size(), body, out.packed_headers);
  });
  // A block that could not be set up fails the sizing before any packet,
  // the first in slot order.
  const Item* failed = nullptr;
  for (const Item& item : items)
    if (!item.set_up.ok() && (!failed || item.slot < failed->slot)) failed = &item;
  if (!uncovered_set_up.ok() && (!failed || uncovered_slot < failed->slot)) return uncovered_set_up;
  if (failed) return failed->set_up;
  uint64_t total = 0;
  for (size_t i = 0; i < count; ++i) {
    for (const BandPart& part : parts_of(i)) MALLAT_RETURN_IF_ERROR(part.fetch_failed);
    for (const BandPart& part : parts_of(i)) MALLAT_RETURN_IF_ERROR(part.failed);
    if (out.headers && out.packed_headers) out.headers->insert(out.headers->end(), headers[i].begin(), headers[i].end());
    keep_header(out, headers[i]);
    if (out.packets) out.packets->push_back(coded[i].sizes);
    total += coded[i].bytes;
  }
  return total;
}

// Each packet's SOP marker one after another, where there are any (A.8.1).
std::vector<uint8_t> sop_markers(const TilePacketsToWrite& what) {
  std::vector<uint8_t> sops;
  if (!what.sop) return sops;
  sops.reserve(what.sequence.size() * kSopBytes);
  for (size_t i = 0; i < what.sequence.size(); ++i) write_sop(static_cast<uint16_t>(i & 0xFFFF), sops);
  return sops;
}

// Where each packet's kept header starts among the kept bytes (all 0
// where none are kept), then where the last ends.
Result<std::vector<size_t>> kept_header_starts(const TilePacketsToWrite& what, const KeptHeaders* kept) {
  std::vector<size_t> starts(what.sequence.size() + 1, 0);
  if (!kept) return starts;
  for (size_t i = 0; i < what.sequence.size(); ++i) starts[i + 1] = starts[i] + kept->lengths[i];
  if (starts.back() > kept->bytes.size()) return internal_error("packets: the kept headers end early");
  return starts;
}

// Hands `put` the pieces of packet i's data (for_each_data_piece) from a
// sizing's packets and kept headers (header_at: where its header starts,
// kept_header_starts) and the packets' `sops` (sop_markers); pieces that
// add up to other than its sizing are an error.
template <typename Put>
Status sized_packet_pieces(const TilePrecincts& precincts, const TilePacketsToWrite& what,
                           std::span<const PacketBytes> packets, const KeptHeaders* kept,
                           std::span<const uint8_t> sops, size_t i, size_t header_at, Put&& put) {
  const std::span<const uint8_t> sop = what.sop ? sops.subspan(i * kSopBytes, kSopBytes) : std::span<const uint8_t>();
  const std::span<const uint8_t> header =
      kept ? std::span<const uint8_t>(kept->bytes).subspan(header_at, kept->lengths[i]) : std::span<const uint8_t>();
  uint64_t bytes = 0;
  MALLAT_RETURN_IF_ERROR(
      for_each_data_piece(precincts, what, what.sequence[i], sop, header, [&](std::span<const uint8_t> piece) {
        bytes += piece.size();
        return put(piece);
      }));
  if (bytes != packets[i].data) return internal_error("packets: a packet's data differs from its sizing");
  return Status::Ok();
}

// A piece of a tile's packet data that lies elsewhere (an SOP marker, a
// header the sizing kept, a block's passes) and where it starts in the
// data.
struct DataPiece {
  const uint8_t* from = nullptr;
  uint64_t bytes = 0;
  uint64_t at = 0;
};

// Bytes [begin, end) of the data that `pieces` lay out to `to`, in items of
// `item_bytes` on the pool; `beside`, where given, as one more item, the
// first handed out.
void copy_data_pieces(std::span<const DataPiece> pieces, uint64_t begin, uint64_t end, uint8_t* to, ThreadPool& pool,
                      uint64_t item_bytes, const std::function<void()>& beside = nullptr) {
  const int64_t first = beside ? 1 : 0;
  const uint64_t items = (end - begin + item_bytes - 1) / item_bytes;
  pool.parallel_for(first + static_cast<int64_t>(items), [&](int64_t k) {
    if (k < first) {
      beside();
      return;
    }
    k -= first;
    const uint64_t lo = begin + static_cast<uint64_t>(k) * item_bytes;
    const uint64_t hi = std::min(lo + item_bytes, end);
    // The piece that holds byte lo: the last that starts at or before it
    // (the first starts at 0).
    auto piece = std::upper_bound(pieces.begin(), pieces.end(), lo,
                                  [](uint64_t byte, const DataPiece& p) { return byte < p.at; }) - 1;
    for (; piece != pieces.end() && piece->at < hi; ++piece) {
      const uint64_t from = std::max(lo, piece->at);
      const uint64_t until = std::min(hi, piece->at + piece->bytes);
      std::memcpy(to + (from - begin), piece->from + (from - piece->at), until - from);
    }
  });
}

// The pieces of the packets' data in the sequence's order, listed on
// what.pool: each packet's from where its sizing puts it (many small
// packets to a pool item together, a few large ones one each), then
// joined. The packets' `sops` are sop_markers'.
Result<std::vector<DataPiece>> list_data_pieces(const TilePrecincts& precincts, const TilePacketsToWrite& what,
                                                std::span<const PacketBytes> packets, const KeptHeaders* kept,
                                                std::span<const uint8_t> sops) {
  const size_t count = what.sequence.size();
  MALLAT_ASSIGN_OR_RETURN(const std::vector<size_t> header_at, kept_header_starts(what, kept));
  std::vector<uint64_t> packet_at(count, 0);
  for (size_t i = 1; i < count; ++i) packet_at[i] = packet_at[i - 1] + packets[i - 1].data;
  std::vector<std::vector<DataPiece>> listed(count);
  std::vector<Status> failed(count);
  const int64_t at_once = std::max<int64_t>(1, static_cast<int64_t>(count) / (8 * what.pool->size()));
  what.pool->parallel_for_in_pieces(static_cast<int64_t>(count), at_once, [&](int64_t k) {
    const size_t i = static_cast<size_t>(k);
    uint64_t at = packet_at[i];
    const auto list = [&](std::span<const uint8_t> piece) {
      if (!piece.empty()) listed[i].push_back({piece.data(), piece.size(), at});
      at += piece.size();
      return Status::Ok();
    };
    failed[i] = sized_packet_pieces(precincts, what, packets, kept, sops, i, header_at[i], list);
  });
  size_t listed_pieces = 0;
  for (size_t i = 0; i < count; ++i) {
    MALLAT_RETURN_IF_ERROR(failed[i]);
    listed_pieces += listed[i].size();
  }
  std::vector<DataPiece> pieces;
  pieces.reserve(listed_pieces);
  for (const std::vector<DataPiece>& one : listed) pieces.insert(pieces.end(), one.begin(), one.end());
  return pieces;
}

// The `total` bytes that `pieces` lay out, through out.data_sink in chunks
// of what.split.chunk_bytes, each copied on what.pool. Chunk k is copied
// while chunk k - 1, in a second chunk's memory, goes to the sink: its
// sending is one more item of the same pool call (no thread beyond the
// pool's), so that the file's writes (serial: one file) do not wait for
// the copies nor they for the writes. The sink takes one chunk at a time,
// in order, on whichever of the pool's threads. Memory: two chunks (one
// where the data fit in one), in huge pages where a chunk is one
// (large_buffer.h), since fresh memory's page faults would cost about what
// the copies do (the pages not touched cost nothing).
Status send_data_in_chunks(std::span<const DataPiece> pieces, uint64_t total, const TilePacketsToWrite& what,
                           const PacketOutput& out) {
  const uint64_t chunk_bytes = std::max<uint64_t>(1, what.split.chunk_bytes);
  const uint64_t item_bytes = std::max<uint64_t>(1, what.split.item_bytes);
  const bool two = total > chunk_bytes;
  const size_t sizes[] = {static_cast<size_t>(chunk_bytes), two ? static_cast<size_t>(chunk_bytes) : 0};
  const std::vector<std::shared_ptr<std::byte[]>> chunks = allocate_large_pieces(sizes);
  const auto& sink = *out.data_sink;
  std::span<const uint8_t> copied;  // the chunk before, not yet sent
  for (uint64_t begin = 0, k = 0; begin < total; ++k) {
    const uint64_t end = std::min(total, begin + chunk_bytes);
    uint8_t* const to = reinterpret_cast<uint8_t*>(chunks[two ? k % 2 : 0].get());
    // Chunk k's memory was last sent by the call before the last.
    Status sent;
    const std::function<void()> send = [&] { sent = sink(copied); };
    copy_data_pieces(pieces, begin, end, to, *what.pool, item_bytes, copied.empty() ? nullptr : send);
    MALLAT_RETURN_IF_ERROR(sent);
    copied = std::span<const uint8_t>(to, static_cast<size_t>(end - begin));
    begin = end;
  }
  return sink(copied);
}

// write_packet_data on what.pool: the pieces listed, then copied in ranges
// on the pool, to out.data at once or through out.data_sink in chunks of
// what.split.chunk_bytes.
Status write_packet_data_on_pool(const TilePrecincts& precincts, const TilePacketsToWrite& what,
                                 std::span<const PacketBytes> packets, const KeptHeaders* kept,
                                 const PacketOutput& out) {
  const std::vector<uint8_t> sops = sop_markers(what);
  MALLAT_ASSIGN_OR_RETURN(const std::vector<DataPiece> pieces, list_data_pieces(precincts, what, packets, kept, sops));
  uint64_t total = 0;
  for (const PacketBytes& p : packets) total += p.data;
  const uint64_t item_bytes = std::max<uint64_t>(1, what.split.item_bytes);
  if (out.data) {
    const size_t base = out.data->size();
    if (out.data->capacity() < base + total) {
      std::vector<uint8_t> grown;
      reserve_large(grown, base + total);
      grown.assign(out.data->begin(), out.data->end());
      out.data->swap(grown);
    }
    out.data->resize(base + total);
    copy_data_pieces(pieces, 0, total, out.data->data() + base, *what.pool, item_bytes);
    return Status::Ok();
  }
  if (total == 0) return Status::Ok();
  return send_data_in_chunks(pieces, total, what, out);
}

// Whether the packets go on what.pool: there is one of several threads,
// and the tile has what.split.least_code_blocks.
bool on_pool(const TilePrecincts& precincts, const TilePacketsToWrite& what) {
  return what.pool != nullptr && what.pool->size() > 1 && precincts.code_blocks() >= what.split.least_code_blocks;
}

}  // namespace

Result<uint64_t> write_packets(TilePrecincts& precincts, const TilePacketsToWrite& what, const PacketOutput& out) {
  const bool pool = on_pool(precincts, what);
  if (pool && !out.data && !out.data_sink) return size_packets_on_pool(precincts, what, out);
  if (pool) {
    // Sized on the pool, the headers kept, then the data laid out from the
    // sizes: the same bytes as the loop below.
    std::vector<PacketBytes> sizes;
    KeptHeaders kept;
    PacketOutput sizing{out.packed_headers, nullptr, out.headers, &sizes};
    if (!out.packed_headers) sizing.kept_headers = &kept;
    MALLAT_ASSIGN_OR_RETURN(const uint64_t total, size_packets_on_pool(precincts, what, sizing));
    MALLAT_RETURN_IF_ERROR(
        write_packet_data_on_pool(precincts, what, sizes, out.packed_headers ? nullptr : &kept, out));
    if (out.packets) out.packets->insert(out.packets->end(), sizes.begin(), sizes.end());
    return total;
  }
  MALLAT_RETURN_IF_ERROR(set_first_layers(precincts, what, 0, precincts.code_blocks()));
  std::vector<CodeBlockContribution> contributions;
  std::vector<uint8_t> header, sop;
  uint64_t total = 0;
  uint32_t packet_index = 0;
  for (const PacketId& id : what.sequence) {
    MALLAT_ASSIGN_OR_RETURN(const CodedPacket coded,
                            code_packet(precincts, what, id, packet_index, out.packed_headers, contributions, header,
                                        sop));
    if (out.packed_headers && out.headers) out.headers->insert(out.headers->end(), header.begin(), header.end());
    if (out.data || out.data_sink) {
      MALLAT_RETURN_IF_ERROR(
          for_each_data_piece(precincts, what, id, sop, out.packed_headers ? std::span<const uint8_t>() : header,
                              [&](std::span<const uint8_t> piece) { return put_piece(out, piece); }));
    } else {
      keep_header(out, header);
    }
    if (out.packets) out.packets->push_back(coded.sizes);
    total += coded.bytes;
    ++packet_index;
  }
  return total;
}

Status write_packet_data(const TilePrecincts& precincts, const TilePacketsToWrite& what,
                         std::span<const PacketBytes> packets, const KeptHeaders* kept, const PacketOutput& out) {
  const size_t count = what.sequence.size();
  if (packets.size() != count || (kept && kept->lengths.size() != count))
    return internal_error("packets: the sizing kept other packets than these");
  if (on_pool(precincts, what) && (out.data || out.data_sink))
    return write_packet_data_on_pool(precincts, what, packets, kept, out);
  const std::vector<uint8_t> sops = sop_markers(what);
  MALLAT_ASSIGN_OR_RETURN(const std::vector<size_t> header_at, kept_header_starts(what, kept));
  for (size_t i = 0; i < count; ++i) {
    MALLAT_RETURN_IF_ERROR(sized_packet_pieces(precincts, what, packets, kept, sops, i, header_at[i],
                                               [&](std::span<const uint8_t> piece) { return put_piece(out, piece); }));
  }
  return Status::Ok();
}

}  // namespace mallat::codec
