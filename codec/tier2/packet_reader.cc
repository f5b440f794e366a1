#include "codec/tier2/packet_reader.h"

#include <string>

namespace mallat::codec {

namespace {

// Appends one packet's contribution for `block` (B.10.7): its pieces are read
// from data at *pos. Returns false when the body runs past the data.
bool take_contribution(const CodeBlockContribution& contrib, int layer, bool keep, std::span<const uint8_t> data,
                       size_t* pos, CodeBlockSegments& s) {
  if (contrib.first_inclusion) s.zero_bitplanes = contrib.zero_bitplanes;
  if (keep) s.ht = contrib.ht;
  // A codeword segment may span packets: the header coder says whether the
  // first piece continues the block's last segment.
  bool continues = contrib.continues_segment;
  for (uint32_t len : contrib.lengths) {
    if (len > data.size() - *pos) return false;
    if (keep) {
      if (len > 0) s.pieces.push_back(data.subspan(*pos, len));
      if (continues && !s.segment_lengths.empty()) {
        s.segment_lengths.back() += len;
      } else {
        s.segment_lengths.push_back(len);
      }
    }
    continues = false;
    *pos += len;
  }
  if (keep) {
    // The layers before this one hold what the block had before it (the
    // layers after its last contribution read `passes`).
    if (layer > 0) s.passes_by_layer.resize(static_cast<size_t>(layer), s.passes);
    s.passes += contrib.new_passes;
  }
  return true;
}

}  // namespace

bool read_packets(TilePrecincts& precincts, const TilePacketsToRead& what, std::vector<CodeBlockSegments>& blocks,
                  std::vector<std::string>& warnings) {
  blocks.assign(precincts.code_blocks(), {});
  const std::span<const uint8_t> data = what.data, headers = what.headers;
  size_t pos = 0, hpos = 0;
  std::vector<CodeBlockContribution> contributions;
  // PLT's lengths locate packets only where the headers are in the packet
  // data and there is one length per packet.
  const bool lengths = !what.lengths.empty() && what.lengths.size() == what.sequence.size() && !what.packed_headers &&
                 what.wanted;
  for (size_t n = 0; n < what.sequence.size(); ++n) {
    const PacketId& id = what.sequence[n];
    if (pos >= data.size() && (!what.packed_headers || hpos >= headers.size())) {
      warnings.push_back("packet data ends after " + std::to_string(n) + " of " +
                         std::to_string(what.sequence.size()) + " packets");
      return false;
    }
    const size_t start = pos;
    if (lengths && !what.wanted(id)) {
      if (what.lengths[n] > data.size() - pos) {
        warnings.push_back(what.describe(n, pos) + ": its PLT length runs past the packet data");
        return false;
      }
      pos += what.lengths[n];
      continue;
    }
    if (what.sop && pos < data.size()) {
      auto sop = skip_sop(data.subspan(pos));
      if (!sop.ok()) {
        warnings.push_back(what.describe(n, pos) + ": " + sop.status().message());
        return false;
      }
      pos += *sop;
    }
    PrecinctPacketCoder& coder = precincts.coder(id.component, id.resolution, id.precinct);
    const std::span<const uint8_t> source = what.packed_headers ? headers.subspan(hpos) : data.subspan(pos);
    const size_t packet_pos = pos;
    auto used = coder.decode_header(id.layer, source, contributions);
    if (!used.ok()) {
      warnings.push_back(what.describe(n, packet_pos) + (what.packed_headers ? " (header in PPM/PPT)" : "") +
                         " header: " + used.status().message());
      return false;
    }
    (what.packed_headers ? hpos : pos) += *used;
    const size_t first = precincts.first_slot(id.component, id.resolution, id.precinct);
    const bool keep = id.layer < what.decode_layers;
    for (size_t k = 0; k < contributions.size(); ++k) {
      if (contributions[k].new_passes == 0) continue;
      if (!take_contribution(contributions[k], id.layer, keep, data, &pos, blocks[first + k])) {
        warnings.push_back(what.describe(n, packet_pos) + ": body is truncated");
        return false;
      }
    }
    if (lengths && pos - start != what.lengths[n]) {
      warnings.push_back(what.describe(n, start) + ": " + std::to_string(pos - start) + " bytes, PLT says " +
                         std::to_string(what.lengths[n]) + " (the tile's packets are read again without PLT)");
      return true;
    }
    if (what.read && !lengths) what.read(n + 1);
  }
  return false;
}

}  // namespace mallat::codec
