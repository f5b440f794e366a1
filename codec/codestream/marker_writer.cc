#include "codec/codestream/marker_writer.h"

#include <algorithm>
#include <limits>
#include <string>

#include "codec/codestream/markers.h"
#include "codec/codestream/params_check.h"

namespace mallat::codec {
namespace {

// Writes the marker and a length placeholder; returns where the length sits.
size_t begin_segment(ByteWriter& w, uint16_t code) {
  w.u16(code);
  size_t at = w.size();
  w.u16(0);
  return at;
}

Status end_segment(ByteWriter& w, size_t at, uint16_t code) {
  size_t len = w.size() - at;
  if (len > 65535)
    return invalid_argument(marker_name(code) + " segment of " + std::to_string(len) + " bytes exceeds 65535");
  w.patch_u16(at, static_cast<uint16_t>(len));
  return Status::Ok();
}

Status with_name(const char* name, const Status& s) {
  return s.ok() ? s : Status(s.code(), std::string(name) + ": " + s.message());
}

Status check_component_index(const char* name, int c, int num_components) {
  if (c < 0 || c >= num_components || num_components > 16384)
    return invalid_argument(std::string(name) + ": component " + std::to_string(c) + " outside 0.." +
                            std::to_string(num_components - 1));
  return Status::Ok();
}

void write_component_index(ByteWriter& w, int c, int num_components) {
  if (num_components < 257) w.u8(static_cast<uint8_t>(c));
  else w.u16(static_cast<uint16_t>(c));
}

// SPcod / SPcoc (Tables A.15, A.23).
void write_component_coding(ByteWriter& w, const ComponentCoding& cc) {
  w.u8(static_cast<uint8_t>(cc.levels));
  w.u8(static_cast<uint8_t>(cc.xcb - 2));
  w.u8(static_cast<uint8_t>(cc.ycb - 2));
  w.u8(cc.style.to_byte());
  w.u8(cc.reversible ? 1 : 0);
  for (const auto& p : cc.precinct_exponents) w.u8(static_cast<uint8_t>(p[0] | p[1] << 4));
}

// Sqcx and SPqcx (Tables A.28..A.30).
void write_quantization(ByteWriter& w, const Quantization& q) {
  w.u8(static_cast<uint8_t>(static_cast<int>(q.style) | q.guard_bits << 5));
  for (const auto& s : q.steps) {
    if (q.style == QuantizationStyle::kNone) w.u8(static_cast<uint8_t>(s.exponent << 3));
    else w.u16(static_cast<uint16_t>(s.exponent << 11 | s.mantissa));
  }
}

}  // namespace

void write_soc(ByteWriter& w) { w.u16(marker::kSOC); }
void write_sod(ByteWriter& w) { w.u16(marker::kSOD); }
void write_eoc(ByteWriter& w) { w.u16(marker::kEOC); }

Status write_siz(ByteWriter& w, const ImageAndTileSize& siz) {
  ParseLimits unlimited;
  unlimited.max_samples = std::numeric_limits<uint64_t>::max();
  MALLAT_RETURN_IF_ERROR(with_name("SIZ", check_image_and_tile_size(siz, unlimited)));
  size_t at = begin_segment(w, marker::kSIZ);
  w.u16(siz.rsiz);
  for (uint32_t v : {siz.xsiz, siz.ysiz, siz.xosiz, siz.yosiz, siz.xtsiz, siz.ytsiz, siz.xtosiz, siz.ytosiz}) w.u32(v);
  w.u16(static_cast<uint16_t>(siz.components.size()));
  for (const auto& c : siz.components) {
    w.u8(static_cast<uint8_t>((c.is_signed ? 0x80 : 0) | (c.precision - 1)));
    w.u8(static_cast<uint8_t>(c.dx));
    w.u8(static_cast<uint8_t>(c.dy));
  }
  return end_segment(w, at, marker::kSIZ);
}

Status write_cod(ByteWriter& w, const CodingStyle& cod) {
  MALLAT_RETURN_IF_ERROR(with_name("COD", check_coding_style(cod)));
  size_t at = begin_segment(w, marker::kCOD);
  w.u8(static_cast<uint8_t>((cod.component.precinct_exponents.empty() ? 0 : 1) | cod.sop << 1 | cod.eph << 2));
  w.u8(static_cast<uint8_t>(cod.order));
  w.u16(static_cast<uint16_t>(cod.layers));
  w.u8(cod.multiple_component_transform ? 1 : 0);
  write_component_coding(w, cod.component);
  return end_segment(w, at, marker::kCOD);
}

Status write_coc(ByteWriter& w, int component, const ComponentCoding& cc, int num_components) {
  MALLAT_RETURN_IF_ERROR(check_component_index("COC", component, num_components));
  MALLAT_RETURN_IF_ERROR(with_name("COC", check_component_coding(cc)));
  size_t at = begin_segment(w, marker::kCOC);
  write_component_index(w, component, num_components);
  w.u8(cc.precinct_exponents.empty() ? 0 : 1);
  write_component_coding(w, cc);
  return end_segment(w, at, marker::kCOC);
}

Status write_qcd(ByteWriter& w, const Quantization& q) {
  MALLAT_RETURN_IF_ERROR(with_name("QCD", check_quantization(q)));
  size_t at = begin_segment(w, marker::kQCD);
  write_quantization(w, q);
  return end_segment(w, at, marker::kQCD);
}

Status write_qcc(ByteWriter& w, int component, const Quantization& q, int num_components) {
  MALLAT_RETURN_IF_ERROR(check_component_index("QCC", component, num_components));
  MALLAT_RETURN_IF_ERROR(with_name("QCC", check_quantization(q)));
  size_t at = begin_segment(w, marker::kQCC);
  write_component_index(w, component, num_components);
  write_quantization(w, q);
  return end_segment(w, at, marker::kQCC);
}

Status write_rgn(ByteWriter& w, const RegionOfInterest& roi, int num_components) {
  MALLAT_RETURN_IF_ERROR(check_component_index("RGN", roi.component, num_components));
  if (roi.shift < 0 || roi.shift > 255) return invalid_argument("RGN: shift " + std::to_string(roi.shift) + " outside 0..255");
  size_t at = begin_segment(w, marker::kRGN);
  write_component_index(w, roi.component, num_components);
  w.u8(0);  // Srgn: max-shift (Table A.26)
  w.u8(static_cast<uint8_t>(roi.shift));
  return end_segment(w, at, marker::kRGN);
}

Status write_poc(ByteWriter& w, std::span<const ProgressionChange> poc, int num_components) {
  const bool wide = num_components >= 257;
  const size_t per_segment = (65535 - 2) / (wide ? 9 : 7);
  for (const auto& p : poc) {
    MALLAT_RETURN_IF_ERROR(with_name("POC", check_progression_change(p, num_components)));
    if (p.component_end > (wide ? 16384 : 256) || p.component_end < 1)
      return invalid_argument("POC: CEpoc " + std::to_string(p.component_end) + " cannot be written");
    if (p.resolution_start > 32 || p.resolution_end > 33)
      return invalid_argument("POC: resolution range cannot be written");
  }
  for (size_t first = 0; first < poc.size(); first += per_segment) {
    size_t at = begin_segment(w, marker::kPOC);
    for (size_t i = first; i < std::min(poc.size(), first + per_segment); ++i) {
      const auto& p = poc[i];
      w.u8(static_cast<uint8_t>(p.resolution_start));
      write_component_index(w, p.component_start, num_components);
      w.u16(static_cast<uint16_t>(p.layer_end));
      w.u8(static_cast<uint8_t>(p.resolution_end));
      int ce = p.component_end == (wide ? 16384 : 256) ? 0 : p.component_end;
      write_component_index(w, ce, num_components);
      w.u8(static_cast<uint8_t>(p.order));
    }
    MALLAT_RETURN_IF_ERROR(end_segment(w, at, marker::kPOC));
  }
  return Status::Ok();
}

Status write_crg(ByteWriter& w, std::span<const ComponentRegistration> crg, int num_components) {
  if (static_cast<int>(crg.size()) != num_components)
    return invalid_argument("CRG: " + std::to_string(crg.size()) + " entries for " + std::to_string(num_components) + " components");
  size_t at = begin_segment(w, marker::kCRG);
  for (const auto& c : crg) {
    w.u16(c.x);
    w.u16(c.y);
  }
  return end_segment(w, at, marker::kCRG);
}

Status write_com(ByteWriter& w, const Comment& c) {
  if (c.data.size() > 65535 - 4) return invalid_argument("COM: comment of " + std::to_string(c.data.size()) + " bytes is too long");
  size_t at = begin_segment(w, marker::kCOM);
  w.u16(c.registration);
  w.bytes(c.data);
  return end_segment(w, at, marker::kCOM);
}

Status write_tlm(ByteWriter& w, std::span<const TilePartLength> entries) {
  const bool with_tiles = std::any_of(entries.begin(), entries.end(), [](const auto& e) { return e.tile >= 0; });
  const size_t entry = with_tiles ? 6 : 4;
  const size_t per_segment = (65535 - 4) / entry;
  if ((entries.size() + per_segment - 1) / per_segment > 256) return invalid_argument("TLM: too many tile-parts for 256 segments");
  int z = 0;
  for (size_t first = 0; first < entries.size(); first += per_segment, ++z) {
    size_t at = begin_segment(w, marker::kTLM);
    w.u8(static_cast<uint8_t>(z));
    w.u8(with_tiles ? 0x60 : 0x40);  // Table A.35: ST = 2 (or 0), SP = 1
    for (size_t i = first; i < std::min(entries.size(), first + per_segment); ++i) {
      if (with_tiles) {
        if (entries[i].tile < 0 || entries[i].tile > 65534) return invalid_argument("TLM: tile index " + std::to_string(entries[i].tile));
        w.u16(static_cast<uint16_t>(entries[i].tile));
      }
      w.u32(entries[i].length);
    }
    MALLAT_RETURN_IF_ERROR(end_segment(w, at, marker::kTLM));
  }
  return Status::Ok();
}

Status write_plt(ByteWriter& w, std::span<const uint32_t> lengths) {
  // Iplt (A.7.3): groups of 7 bits, most significant first.
  std::vector<uint8_t> coded;
  std::vector<size_t> ends;  // where each length's bytes end, to split segments between lengths
  for (uint32_t v : lengths) {
    uint8_t tmp[5];
    int n = 0;
    do {
      tmp[n++] = static_cast<uint8_t>(v & 0x7F);
      v >>= 7;
    } while (v != 0);
    while (n > 1) coded.push_back(tmp[--n] | 0x80);
    coded.push_back(tmp[0]);
    ends.push_back(coded.size());
  }
  const size_t max_body = 65535 - 3;  // Lplt and Zplt
  size_t start = 0, z = 0, e = 0;
  while (start < coded.size()) {
    size_t stop = start;
    while (e < ends.size() && ends[e] - start <= max_body) stop = ends[e++];
    if (z > 255) return invalid_argument("PLT: more than 256 segments");
    size_t at = begin_segment(w, marker::kPLT);
    w.u8(static_cast<uint8_t>(z++));
    w.bytes(std::span<const uint8_t>(coded).subspan(start, stop - start));
    MALLAT_RETURN_IF_ERROR(end_segment(w, at, marker::kPLT));
    start = stop;
  }
  return Status::Ok();
}

constexpr size_t kMaxPptBody = 65535 - 3;  // Lppt and Zppt

size_t ppt_segments(size_t bytes) { return (bytes + kMaxPptBody - 1) / kMaxPptBody; }

Result<int> write_ppt(ByteWriter& w, std::span<const uint8_t> headers, int first_index) {
  int z = first_index;
  for (size_t start = 0; start < headers.size(); start += kMaxPptBody, ++z) {
    if (z > 255) return invalid_argument("PPT: more than 256 segments in one tile");
    size_t at = begin_segment(w, marker::kPPT);
    w.u8(static_cast<uint8_t>(z));
    w.bytes(headers.subspan(start, std::min(kMaxPptBody, headers.size() - start)));
    MALLAT_RETURN_IF_ERROR(end_segment(w, at, marker::kPPT));
  }
  return z;
}

Result<std::vector<std::vector<uint8_t>>> ppm_payloads(std::span<const std::vector<uint8_t>> tile_part_headers) {
  const size_t max_body = 65535 - 3;  // Lppm and Zppm
  std::vector<std::vector<uint8_t>> payloads(1);
  auto room = [&] { return max_body - payloads.back().size(); };
  for (const std::vector<uint8_t>& headers : tile_part_headers) {
    if (headers.size() > UINT32_MAX) return invalid_argument("PPM: packed headers of a tile-part exceed 2^32 bytes");
    if (room() < 4) payloads.emplace_back();
    const uint32_t n = static_cast<uint32_t>(headers.size());
    for (int shift = 24; shift >= 0; shift -= 8) payloads.back().push_back(static_cast<uint8_t>(n >> shift));
    for (size_t at = 0; at < headers.size();) {
      if (room() == 0) payloads.emplace_back();
      const size_t take = std::min(room(), headers.size() - at);
      payloads.back().insert(payloads.back().end(), headers.begin() + at, headers.begin() + at + take);
      at += take;
    }
  }
  if (payloads.size() > 256) return invalid_argument("PPM: more than 256 segments of packed headers");
  return payloads;
}

size_t begin_tile_part(ByteWriter& w, int tile, int part, int num_parts) {
  size_t sot = w.size();
  w.u16(marker::kSOT);
  w.u16(10);
  w.u16(static_cast<uint16_t>(tile));
  w.u32(0);
  w.u8(static_cast<uint8_t>(part));
  w.u8(static_cast<uint8_t>(num_parts));
  return sot;
}

Status end_tile_part(ByteWriter& w, size_t sot_offset) {
  size_t len = w.size() - sot_offset;
  if (len > UINT32_MAX) return invalid_argument("tile-part of " + std::to_string(len) + " bytes exceeds Psot");
  w.patch_u32(sot_offset + 6, static_cast<uint32_t>(len));
  return Status::Ok();
}

Status write_overrides(ByteWriter& w, const CodingOverrides& o, int nc) {
  if (o.cod) MALLAT_RETURN_IF_ERROR(write_cod(w, *o.cod));
  for (const auto& [c, cc] : o.coc) MALLAT_RETURN_IF_ERROR(write_coc(w, c, cc, nc));
  if (o.qcd) MALLAT_RETURN_IF_ERROR(write_qcd(w, *o.qcd));
  for (const auto& [c, q] : o.qcc) MALLAT_RETURN_IF_ERROR(write_qcc(w, c, q, nc));
  for (const auto& r : o.rgn) MALLAT_RETURN_IF_ERROR(write_rgn(w, r, nc));
  if (!o.poc.empty()) MALLAT_RETURN_IF_ERROR(write_poc(w, o.poc, nc));
  return Status::Ok();
}

Status write_main_header(ByteWriter& w, const MainHeader& m) {
  const int nc = static_cast<int>(m.siz.components.size());
  write_soc(w);
  MALLAT_RETURN_IF_ERROR(write_siz(w, m.siz));
  if (!m.cap.empty()) write_cap(w, m.cap);
  CodingOverrides o;
  o.cod = m.cod;
  o.coc = m.coc;
  o.qcd = m.qcd;
  o.qcc = m.qcc;
  o.rgn = m.rgn;
  o.poc = m.poc;
  MALLAT_RETURN_IF_ERROR(write_overrides(w, o, nc));
  if (!m.crg.empty()) MALLAT_RETURN_IF_ERROR(write_crg(w, m.crg, nc));
  for (const auto& c : m.comments) MALLAT_RETURN_IF_ERROR(write_com(w, c));
  if (m.ppm.size() > 256) return invalid_argument("PPM: more than 256 segments");
  for (size_t z = 0; z < m.ppm.size(); ++z) {
    if (m.ppm[z].size() > 65535 - 3) return invalid_argument("PPM: segment " + std::to_string(z) + " too long");
    size_t at = begin_segment(w, marker::kPPM);
    w.u8(static_cast<uint8_t>(z));
    w.bytes(m.ppm[z]);
    MALLAT_RETURN_IF_ERROR(end_segment(w, at, marker::kPPM));
  }
  return Status::Ok();
}

Result<CodestreamPieces> codestream_pieces(const MainHeader& main, std::span<const TilePartToWrite> parts,
                                           bool with_tlm) {
  CodestreamPieces out;
  const int nc = static_cast<int>(main.siz.components.size());
  std::vector<TilePartLength> tlm(parts.size());
  for (size_t i = 0; i < parts.size(); ++i) {
    const auto& p = parts[i];
    ByteWriter w;
    size_t sot = begin_tile_part(w, p.tile, p.part, p.num_parts);
    if (p.overrides) MALLAT_RETURN_IF_ERROR(write_overrides(w, *p.overrides, nc));
    if (!p.plt.empty()) MALLAT_RETURN_IF_ERROR(write_plt(w, p.plt));
    if (!p.ppt.empty()) MALLAT_RETURN_IF_ERROR(write_ppt(w, p.ppt, p.ppt_index).status());
    write_sod(w);
    // A.4.2: Psot counts the header and the data that follows it.
    const uint64_t len = uint64_t{w.size()} - sot + (p.data.empty() ? p.data_bytes : p.data.size());
    if (len > UINT32_MAX) return invalid_argument("tile-part of " + std::to_string(len) + " bytes exceeds Psot");
    w.patch_u32(sot + 6, static_cast<uint32_t>(len));
    tlm[i] = {p.tile, static_cast<uint32_t>(len)};
    out.total += len;
    out.part_headers.push_back(w.take());
  }
  ByteWriter w;
  MALLAT_RETURN_IF_ERROR(write_main_header(w, main));
  if (with_tlm) MALLAT_RETURN_IF_ERROR(write_tlm(w, tlm));
  out.main = w.take();
  ByteWriter eoc;
  write_eoc(eoc);
  out.end = eoc.take();
  out.total += out.main.size() + out.end.size();
  return out;
}

Result<std::vector<uint8_t>> write_codestream(const MainHeader& main, std::span<const TilePartToWrite> parts, bool with_tlm) {
  MALLAT_ASSIGN_OR_RETURN(const CodestreamPieces pieces, codestream_pieces(main, parts, with_tlm));
  std::vector<uint8_t> out;
  out.reserve(pieces.total);
  out.insert(out.end(), pieces.main.begin(), pieces.main.end());
  for (size_t i = 0; i < parts.size(); ++i) {
    out.insert(out.end(), pieces.part_headers[i].begin(), pieces.part_headers[i].end());
    out.insert(out.end(), parts[i].data.begin(), parts[i].data.end());
  }
  out.insert(out.end(), pieces.end.begin(), pieces.end.end());
  return out;
}

}  // namespace mallat::codec
