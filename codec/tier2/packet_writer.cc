#include "codec/tier2/packet_writer.h"

namespace mallat::codec {

namespace {

// Byte lengths of the codeword-segment pieces that carry passes
// (before, before + new] of a block (B.10.7.2): each piece ends where a
// segment ends or where the layer ends.
std::vector<uint32_t> piece_lengths(const entropy::EncodedCodeBlock& block, CodeBlockStyle style,
                                    int before, int new_passes) {
  std::vector<uint32_t> lengths;
  auto end_of = [&](int passes) { return passes == 0 ? 0u : block.passes[passes - 1].cumulative_length; };
  int at = before;
  for (int piece : codeword_segment_pieces(style, before, new_passes)) {
    lengths.push_back(end_of(at + piece) - end_of(at));
    at += piece;
  }
  return lengths;
}

// B.10.4: tells each precinct coder the layer in which each of its blocks is
// first included (TagTree::kUnknown: never) and its zero bit-planes.
Status set_first_layers(TilePrecincts& precincts, const TilePacketsToWrite& what) {
  const LayerPasses& layers = *what.layers;
  for (size_t slot = 0; slot < precincts.code_blocks(); ++slot) {
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

}  // namespace

Result<uint64_t> write_packets(TilePrecincts& precincts, const TilePacketsToWrite& what, const PacketOutput& out) {
  const LayerPasses& layers = *what.layers;
  MALLAT_RETURN_IF_ERROR(set_first_layers(precincts, what));
  std::vector<CodeBlockContribution> contributions;
  std::vector<uint8_t> header, sop;
  uint64_t total = 0;
  uint32_t packet_index = 0;
  for (const PacketId& id : what.sequence) {
    PrecinctPacketCoder& coder = precincts.coder(id.component, id.resolution, id.precinct);
    const CodeBlockStyle style = precincts.style(id.component);
    const size_t first = precincts.first_slot(id.component, id.resolution, id.precinct);
    const int n = coder.code_blocks();
    // The passes of block k before this layer and with it.
    auto before = [&](int k) { return id.layer > 0 ? layers[id.layer - 1][what.first_block + first + k] : 0; };
    auto now = [&](int k) { return layers[id.layer][what.first_block + first + k]; };
    contributions.assign(n, {});
    uint64_t bytes = 0;
    for (int k = 0; k < n; ++k) {
      if (now(k) <= before(k)) continue;
      contributions[k].new_passes = now(k) - before(k);
      MALLAT_ASSIGN_OR_RETURN(const entropy::EncodedCodeBlock* block, what.block(first + k));
      contributions[k].lengths = piece_lengths(*block, style, before(k), now(k) - before(k));
      bytes += contributions[k].body_bytes();
    }
    header.clear();
    sop.clear();
    if (what.sop) write_sop(static_cast<uint16_t>(packet_index & 0xFFFF), sop);
    MALLAT_RETURN_IF_ERROR(coder.encode_header(id.layer, contributions, what.eph, header));
    PacketBytes sizes{id, static_cast<uint32_t>(sop.size() + bytes), 0};
    if (out.packed_headers) {
      sizes.header = static_cast<uint32_t>(header.size());
      if (out.headers) out.headers->insert(out.headers->end(), header.begin(), header.end());
    } else {
      sizes.data += static_cast<uint32_t>(header.size());
    }
    bytes += sop.size() + header.size();
    if (out.data || out.data_sink) {
      const auto put = [&](std::span<const uint8_t> piece) -> Status {
        if (out.data) {
          out.data->insert(out.data->end(), piece.begin(), piece.end());
          return Status::Ok();
        }
        return piece.empty() ? Status::Ok() : (*out.data_sink)(piece);
      };
      MALLAT_RETURN_IF_ERROR(put(sop));
      if (!out.packed_headers) MALLAT_RETURN_IF_ERROR(put(header));
      for (int k = 0; k < n; ++k) {
        if (contributions[k].new_passes == 0) continue;
        MALLAT_ASSIGN_OR_RETURN(const entropy::EncodedCodeBlock* block, what.block(first + k));
        const uint32_t from = before(k) == 0 ? 0 : block->passes[before(k) - 1].cumulative_length;
        const uint32_t to = block->passes[now(k) - 1].cumulative_length;
        MALLAT_RETURN_IF_ERROR(put(std::span<const uint8_t>(block->data).subspan(from, to - from)));
      }
    }
    if (out.packets) out.packets->push_back(sizes);
    total += bytes;
    ++packet_index;
  }
  return total;
}

}  // namespace mallat::codec
