#include "codec/codestream/codestream_reader.h"

#include <algorithm>
#include <map>
#include <string>

#include "codec/codestream/markers.h"
#include "codec/codestream/marker_reader.h"

namespace mallat::codec {
namespace {

void warn(std::vector<std::string>* w, std::string m) {
  if (w) w->push_back(std::move(m));
}

std::string at_byte(size_t off) { return " at byte " + std::to_string(off); }

// Reads Lxxx after a marker and returns a reader over the segment body.
Result<ByteReader> read_segment(ByteReader& r, uint16_t code, size_t marker_off) {
  uint16_t len = r.u16();
  if (!r.ok()) return corrupt_at(marker_name(code), marker_off, "stream ends inside the marker segment length");
  if (len < 2) return corrupt_at(marker_name(code), marker_off, "segment length " + std::to_string(len) + " < 2");
  ByteReader seg = r.sub(len - 2);
  if (!r.ok())
    return corrupt_at(marker_name(code), marker_off,
                      "segment of " + std::to_string(len) + " bytes runs past the end of the stream");
  return seg;
}

// Index-ordered chunks (Zppm, Zppt, Zplt, Zplm): a repeated index is an error.
Status add_chunk(std::map<int, std::vector<uint8_t>>& chunks, ByteReader& seg, uint16_t code, size_t off) {
  int z = seg.u8();
  if (!seg.ok()) return corrupt_at(marker_name(code), off, "segment has no index");
  auto rest = seg.rest();
  if (!chunks.emplace(z, std::vector<uint8_t>(rest.begin(), rest.end())).second)
    return corrupt_at(marker_name(code), off, "index " + std::to_string(z) + " repeated");
  return Status::Ok();
}

// The segments that may appear in both main and tile-part headers and
// override coding parameters (A.6). `first_part` false: a tile-part after the
// first, where only POC is allowed (Table A.3); others are ignored.
Status read_override(ByteReader& seg, uint16_t code, size_t off, int num_components, CodingOverrides& o,
                     bool first_part, std::vector<std::string>* w) {
  if (!first_part && code != marker::kPOC) {
    warn(w, marker_name(code) + at_byte(off) + " in a tile-part other than the first is ignored");
    return Status::Ok();
  }
  switch (code) {
    case marker::kCOD: {
      if (o.cod) return corrupt_at("COD", off, "second COD in the same header");
      MALLAT_ASSIGN_OR_RETURN(o.cod, parse_cod(seg));
      break;
    }
    case marker::kCOC: {
      MALLAT_ASSIGN_OR_RETURN(auto coc, parse_coc(seg, num_components));
      if (!o.coc.emplace(coc.first, std::move(coc.second)).second)
        return corrupt_at("COC", off, "second COC for component " + std::to_string(coc.first));
      break;
    }
    case marker::kQCD: {
      if (o.qcd) return corrupt_at("QCD", off, "second QCD in the same header");
      MALLAT_ASSIGN_OR_RETURN(o.qcd, parse_qcd(seg));
      break;
    }
    case marker::kQCC: {
      MALLAT_ASSIGN_OR_RETURN(auto qcc, parse_qcc(seg, num_components));
      if (!o.qcc.emplace(qcc.first, std::move(qcc.second)).second)
        return corrupt_at("QCC", off, "second QCC for component " + std::to_string(qcc.first));
      break;
    }
    case marker::kRGN: {
      MALLAT_ASSIGN_OR_RETURN(auto roi, parse_rgn(seg, num_components));
      for (const auto& r : o.rgn)
        if (r.component == roi.component) return corrupt_at("RGN", off, "second RGN for component " + std::to_string(r.component));
      o.rgn.push_back(roi);
      break;
    }
    case marker::kPOC: {
      MALLAT_ASSIGN_OR_RETURN(auto poc, parse_poc(seg, num_components));
      o.poc.insert(o.poc.end(), poc.begin(), poc.end());
      break;
    }
    default:
      return internal_error("read_override: " + marker_name(code));
  }
  return Status::Ok();
}

bool is_override(uint16_t code) {
  return code == marker::kCOD || code == marker::kCOC || code == marker::kQCD || code == marker::kQCC ||
         code == marker::kRGN || code == marker::kPOC;
}

std::vector<uint8_t> concat(const std::map<int, std::vector<uint8_t>>& chunks) {
  std::vector<uint8_t> out;
  for (const auto& [z, c] : chunks) out.insert(out.end(), c.begin(), c.end());
  return out;
}

// A.7.4: the PPM payloads read as the one sequence of Nppm, Ippm pairs they
// carry (a pair may run on from one PPM segment into the next), a tile-part's
// packed headers at a time, without joining the segments first.
class PpmReader {
 public:
  explicit PpmReader(const std::vector<std::vector<uint8_t>>& payloads) : payloads_(payloads) {
    for (const auto& p : payloads) left_ += p.size();
  }

  bool at_end() const { return left_ == 0; }

  // The next tile-part's Ippm into `out` (nullptr: only checked and skipped).
  // The offset in the message counts within the joined payloads.
  Status next(std::vector<uint8_t>* out) {
    const size_t at = position_;
    uint32_t n = 0;
    if (left_ >= 4) {
      std::vector<uint8_t> b;
      take(4, &b);
      n = uint32_t{b[0]} << 24 | uint32_t{b[1]} << 16 | uint32_t{b[2]} << 8 | b[3];
    }
    if (at == position_ || n > left_)
      return corrupt_at("PPM", at, "Nppm " + std::to_string(n) + " runs past the packed headers");
    if (out) out->clear();
    take(n, out);
    return Status::Ok();
  }

 private:
  // Moves past `n` bytes (n <= left_), appending them to `out` unless null.
  void take(size_t n, std::vector<uint8_t>* out) {
    left_ -= n;
    position_ += n;
    while (n > 0) {
      const std::vector<uint8_t>& p = payloads_[segment_];
      const size_t k = std::min(n, p.size() - offset_);
      if (out) out->insert(out->end(), p.begin() + offset_, p.begin() + offset_ + k);
      n -= k;
      offset_ += k;
      if (offset_ == p.size()) {
        ++segment_;
        offset_ = 0;
      }
    }
  }

  const std::vector<std::vector<uint8_t>>& payloads_;
  size_t segment_ = 0, offset_ = 0;  // the next byte
  size_t position_ = 0, left_ = 0;   // within the joined payloads
};

}  // namespace

Result<MainHeader> parse_main_header(std::span<const uint8_t> stream, std::vector<std::string>* warnings,
                                     const ParseLimits& limits) {
  ByteReader r(stream);
  MainHeader h;
  if (r.u16() != marker::kSOC) return corrupt_at("SOC", 0, "the codestream does not start with SOC (0xFF4F)");
  if (r.u16() != marker::kSIZ) return corrupt_at("SIZ", 2, "SIZ must follow SOC");
  {
    MALLAT_ASSIGN_OR_RETURN(ByteReader seg, read_segment(r, marker::kSIZ, 2));
    MALLAT_ASSIGN_OR_RETURN(h.siz, parse_siz(seg, limits));
  }
  const int nc = static_cast<int>(h.siz.components.size());
  CodingOverrides o;
  std::map<int, std::vector<uint8_t>> ppm, plm;
  std::map<int, std::vector<TilePartLength>> tlm;
  bool have_crg = false;
  for (;;) {
    size_t off = r.offset();
    if (r.remaining() < 2) {
      if (!o.cod || !o.qcd) return corrupt_at("main header", off, "stream ends inside the main header");
      warn(warnings, "the stream ends after the main header" + at_byte(off) + ": no tile-parts");
      break;
    }
    uint16_t code = r.peek_u16();
    if (code == marker::kSOT || code == marker::kEOC) break;
    r.skip(2);
    if (code < 0xFF00) return corrupt_at("main header", off, "expected a marker, found " + marker_name(code));
    if (marker::is_reserved_no_segment(code)) {
      warn(warnings, "skipped reserved marker " + marker_name(code) + at_byte(off));
      continue;
    }
    if (code == marker::kSOC || code == marker::kSOD || code == marker::kSOP || code == marker::kEPH)
      return corrupt_at(marker_name(code), off, "not allowed in the main header");
    MALLAT_ASSIGN_OR_RETURN(ByteReader seg, read_segment(r, code, off));
    if (is_override(code)) {
      MALLAT_RETURN_IF_ERROR(read_override(seg, code, off, nc, o, true, warnings));
      continue;
    }
    switch (code) {
      case marker::kSIZ:
        return corrupt_at("SIZ", off, "second SIZ");
      case marker::kPPM: {
        MALLAT_RETURN_IF_ERROR(add_chunk(ppm, seg, code, off));
        break;
      }
      case marker::kPLM: {
        MALLAT_RETURN_IF_ERROR(add_chunk(plm, seg, code, off));
        break;
      }
      case marker::kTLM: {
        int z = 0;
        MALLAT_ASSIGN_OR_RETURN(auto entries, parse_tlm(seg, &z));
        if (!tlm.emplace(z, std::move(entries)).second) return corrupt_at("TLM", off, "index " + std::to_string(z) + " repeated");
        break;
      }
      case marker::kCRG: {
        if (have_crg) return corrupt_at("CRG", off, "second CRG");
        MALLAT_ASSIGN_OR_RETURN(h.crg, parse_crg(seg, nc));
        have_crg = true;
        break;
      }
      case marker::kCOM: {
        MALLAT_ASSIGN_OR_RETURN(auto c, parse_com(seg));
        h.comments.push_back(std::move(c));
        break;
      }
      case marker::kCAP: {
        if (!h.cap.empty()) return corrupt_at("CAP", off, "second CAP");
        MALLAT_ASSIGN_OR_RETURN(h.cap, parse_cap(seg));
        break;
      }
      case marker::kCPF: {
        if (!h.cpf.empty()) return corrupt_at("CPF", off, "second CPF");
        MALLAT_ASSIGN_OR_RETURN(h.cpf, parse_cpf(seg));
        break;
      }
      case marker::kPPT:
      case marker::kPLT:
        warn(warnings, marker_name(code) + at_byte(off) + " belongs in a tile-part header; skipped");
        break;
      default:
        warn(warnings, "skipped unknown marker segment " + marker_name(code) + at_byte(off) + " (" +
                           std::to_string(seg.size() + 2) + " bytes)");
        break;
    }
  }
  if (!o.cod) return corrupt_at("main header", r.offset(), "no COD");
  if (!o.qcd) return corrupt_at("main header", r.offset(), "no QCD");
  h.cod = std::move(*o.cod);
  h.coc = std::move(o.coc);
  h.qcd = std::move(*o.qcd);
  h.qcc = std::move(o.qcc);
  h.rgn = std::move(o.rgn);
  h.poc = std::move(o.poc);
  for (auto& [z, c] : ppm) h.ppm.push_back(std::move(c));
  for (auto& [z, c] : plm) h.plm.push_back(std::move(c));
  for (auto& [z, t] : tlm) h.tlm.insert(h.tlm.end(), t.begin(), t.end());
  h.end_offset = r.offset();
  return h;
}

Result<TilePartHeader> parse_tile_part_header(std::span<const uint8_t> stream, size_t sot_offset,
                                              const MainHeader& main, std::vector<std::string>* warnings) {
  if (sot_offset > stream.size()) return internal_error("SOT offset past the stream");
  ByteReader r(stream.subspan(sot_offset), sot_offset);
  TilePartHeader t;
  t.sot_offset = sot_offset;
  if (r.u16() != marker::kSOT) return corrupt_at("SOT", sot_offset, "expected SOT (0xFF90)");
  {
    MALLAT_ASSIGN_OR_RETURN(ByteReader seg, read_segment(r, marker::kSOT, sot_offset));
    MALLAT_ASSIGN_OR_RETURN(StartOfTile sot, parse_sot(seg));
    t.tile = sot.tile;
    t.part = sot.part;
    t.num_parts = sot.num_parts;
    t.psot = sot.psot;
  }
  // Some encoders write a wrong TNsot; the tile-part order (TPsot) is what
  // matters, so a TNsot that cannot be right is dropped with a warning.
  if (t.num_parts != 0 && t.part >= t.num_parts) {
    warn(warnings, "SOT" + at_byte(sot_offset) + ": TPsot " + std::to_string(t.part) + " >= TNsot " +
                       std::to_string(t.num_parts) + "; TNsot ignored");
    t.num_parts = 0;
  }
  // A tile-part header may not run past its own tile-part (Psot).
  if (t.psot != 0) {
    if (t.psot < 14) return corrupt_at("SOT", sot_offset, "Psot " + std::to_string(t.psot) + " < 14");
    if (t.psot - 12 < r.remaining()) r = ByteReader(r.rest().subspan(0, t.psot - 12), r.offset());
  }
  const int nc = static_cast<int>(main.siz.components.size());
  std::map<int, std::vector<uint8_t>> ppt, plt;
  for (;;) {
    size_t off = r.offset();
    if (r.remaining() < 2) return corrupt_at("tile-part header", off, "ends without SOD");
    uint16_t code = r.u16();
    if (code == marker::kSOD) {
      t.header_end = off;
      t.data_offset = r.offset();
      break;
    }
    if (code < 0xFF00) return corrupt_at("tile-part header", off, "expected a marker, found " + marker_name(code));
    if (marker::is_reserved_no_segment(code)) {
      warn(warnings, "skipped reserved marker " + marker_name(code) + at_byte(off));
      continue;
    }
    if (code == marker::kSOT || code == marker::kEOC || code == marker::kSOC || code == marker::kSOP || code == marker::kEPH)
      return corrupt_at(marker_name(code), off, "not allowed in a tile-part header");
    MALLAT_ASSIGN_OR_RETURN(ByteReader seg, read_segment(r, code, off));
    if (is_override(code)) {
      MALLAT_RETURN_IF_ERROR(read_override(seg, code, off, nc, t.overrides, t.part == 0, warnings));
      continue;
    }
    switch (code) {
      case marker::kPPT:
        if (!main.ppm.empty()) return corrupt_at("PPT", off, "PPT and PPM in the same codestream");
        MALLAT_RETURN_IF_ERROR(add_chunk(ppt, seg, code, off));
        break;
      case marker::kPLT:
        MALLAT_RETURN_IF_ERROR(add_chunk(plt, seg, code, off));
        break;
      case marker::kCOM: {
        MALLAT_ASSIGN_OR_RETURN(auto c, parse_com(seg));
        t.comments.push_back(std::move(c));
        break;
      }
      case marker::kSIZ:
      case marker::kTLM:
      case marker::kPLM:
      case marker::kPPM:
      case marker::kCRG:
      case marker::kCAP:
      case marker::kCPF:
        warn(warnings, marker_name(code) + at_byte(off) + " belongs in the main header; skipped");
        break;
      default:
        warn(warnings, "skipped unknown marker segment " + marker_name(code) + at_byte(off) + " (" +
                           std::to_string(seg.size() + 2) + " bytes)");
        break;
    }
  }
  t.ppt = concat(ppt);
  if (!plt.empty()) {
    std::vector<uint8_t> bytes = concat(plt);
    MALLAT_ASSIGN_OR_RETURN(t.plt, decode_packet_lengths(bytes, sot_offset));
  }
  return t;
}

Result<Codestream> parse_codestream(std::span<const uint8_t> stream, const ParseLimits& limits) {
  Codestream cs;
  MALLAT_ASSIGN_OR_RETURN(cs.main, parse_main_header(stream, &cs.warnings, limits));
  const uint64_t num_tiles = uint64_t{cs.main.siz.tiles_x()} * cs.main.siz.tiles_y();
  cs.tiles.resize(num_tiles);
  for (size_t i = 0; i < cs.tiles.size(); ++i) cs.tiles[i].index = static_cast<int>(i);
  // Psot = 0 reaches to EOC, which ends the stream when present (A.4.2).
  const bool ends_with_eoc = stream.size() >= 2 && stream[stream.size() - 2] == 0xFF && stream.back() == 0xD9;
  size_t pos = cs.main.end_offset;
  // A.7.4: PPM holds one Nppm, Ippm pair per tile-part in the order the
  // tile-parts appear in the codestream, not in tile order: A.4.2 lets the
  // tile-parts of different tiles interleave. Each tile-part takes the next
  // pair as it is read, so the PPM is split once for the whole stream, into
  // no more bytes than its payloads hold.
  PpmReader ppm(cs.main.ppm);
  size_t ppm_missing = 0, ppm_missing_from = 0;
  for (;;) {
    if (pos + 2 > stream.size()) {
      cs.warnings.push_back("no EOC at the end of the codestream");
      break;
    }
    uint16_t code = static_cast<uint16_t>(stream[pos] << 8 | stream[pos + 1]);
    if (code == marker::kEOC) {
      cs.has_eoc = true;
      if (pos + 2 != stream.size())
        cs.warnings.push_back(std::to_string(stream.size() - pos - 2) + " bytes after EOC ignored");
      break;
    }
    if (code != marker::kSOT) {
      cs.warnings.push_back("expected SOT or EOC" + at_byte(pos) + ", found " + marker_name(code) + "; the rest is ignored");
      break;
    }
    auto hdr = parse_tile_part_header(stream, pos, cs.main, &cs.warnings);
    if (!hdr.ok()) {
      // A header cut off by the end of the stream is truncation, kept as a
      // warning; a header that is wrong inside its own bytes is an error.
      uint32_t psot = pos + 10 <= stream.size() ? uint32_t(stream[pos + 6]) << 24 | uint32_t(stream[pos + 7]) << 16 |
                                                      uint32_t(stream[pos + 8]) << 8 | stream[pos + 9]
                                                : 0;
      if (pos + 14 > stream.size() || (psot != 0 && pos + psot > stream.size())) {
        cs.truncated = true;
        cs.warnings.push_back("truncated tile-part" + at_byte(pos) + ": " + hdr.status().message());
        break;
      }
      return hdr.status();
    }
    TilePartHeader& t = *hdr;
    if (static_cast<uint64_t>(t.tile) >= num_tiles)
      return corrupt_at("SOT", pos, "tile index " + std::to_string(t.tile) + " >= " + std::to_string(num_tiles) + " tiles");
    Tile& tile = cs.tiles[t.tile];
    if (static_cast<size_t>(t.part) != tile.parts.size())
      return corrupt_at("SOT", pos, "tile " + std::to_string(t.tile) + " part " + std::to_string(t.part) + " where part " +
                                        std::to_string(tile.parts.size()) + " is due");
    if (!tile.parts.empty() && t.num_parts != 0 && tile.parts[0].num_parts != 0 && t.num_parts != tile.parts[0].num_parts)
      cs.warnings.push_back("SOT" + at_byte(pos) + ": TNsot " + std::to_string(t.num_parts) + " differs from " +
                            std::to_string(tile.parts[0].num_parts));
    size_t end;
    bool last = false;
    if (t.psot == 0) {
      end = ends_with_eoc ? stream.size() - 2 : stream.size();
      if (end < t.data_offset) end = t.data_offset;
      last = true;
    } else {
      end = pos + t.psot;
      if (end > stream.size()) {
        cs.truncated = true;
        cs.warnings.push_back("tile-part" + at_byte(pos) + " of " + std::to_string(t.psot) + " bytes has only " +
                              std::to_string(stream.size() - pos) + " before the stream ends");
        end = stream.size();
        last = true;
      }
    }
    t.data_length = end - t.data_offset;
    if (!cs.main.ppm.empty()) {
      if (!ppm.at_end()) {
        MALLAT_RETURN_IF_ERROR(ppm.next(&t.ppm));
      } else if (ppm_missing++ == 0) {
        ppm_missing_from = pos;
      }
    }
    if (t.part == 0) {
      tile.overrides = t.overrides;
    } else {
      tile.overrides.poc.insert(tile.overrides.poc.end(), t.overrides.poc.begin(), t.overrides.poc.end());
    }
    tile.parts.push_back(std::move(t));
    pos = end;
    if (last) {
      if (pos + 2 <= stream.size() && stream[pos] == 0xFF && stream[pos + 1] == 0xD9) cs.has_eoc = true;
      else if (!cs.truncated) cs.warnings.push_back("no EOC at the end of the codestream");
      break;
    }
  }
  // Pairs beyond the last tile-part (a truncated stream) are checked as
  // before but kept nowhere; tile-parts beyond the last pair have none.
  while (!ppm.at_end()) MALLAT_RETURN_IF_ERROR(ppm.next(nullptr));
  if (ppm_missing != 0)
    cs.warnings.push_back("PPM has no packed headers for the last " + std::to_string(ppm_missing) +
                          " tile-part(s), from the one" + at_byte(ppm_missing_from) + " on");
  for (const Tile& tile : cs.tiles)
    if (!tile.parts.empty() && tile.parts[0].num_parts != 0 && static_cast<int>(tile.parts.size()) < tile.parts[0].num_parts)
      cs.warnings.push_back("tile " + std::to_string(tile.index) + " has " + std::to_string(tile.parts.size()) + " of " +
                            std::to_string(tile.parts[0].num_parts) + " tile-parts");
  return cs;
}

Result<std::vector<std::vector<uint8_t>>> ppm_tile_part_headers(const MainHeader& main) {
  PpmReader ppm(main.ppm);
  std::vector<std::vector<uint8_t>> out;
  while (!ppm.at_end()) MALLAT_RETURN_IF_ERROR(ppm.next(&out.emplace_back()));
  return out;
}

}  // namespace mallat::codec
