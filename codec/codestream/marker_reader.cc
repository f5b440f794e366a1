#include "codec/codestream/marker_reader.h"

#include <algorithm>
#include <string>

#include "codec/codestream/params_check.h"

namespace mallat::codec {
namespace {

// Turns a check_* failure into "<name> at byte <offset>: <message>", keeping
// kResourceLimit as it is.
Status at(const char* name, size_t offset, const Status& s) {
  if (s.code() == ErrorCode::kResourceLimit) return Status(s.code(), std::string(name) + " at byte " + std::to_string(offset) + ": " + s.message());
  return corrupt_at(name, offset, s.message());
}

Status truncated(const char* name, const ByteReader& seg) {
  return corrupt_at(name, seg.base_offset(), "segment too short (" + std::to_string(seg.size()) + " bytes)");
}

std::string hex(unsigned v) {
  static const char* d = "0123456789ABCDEF";
  return std::string("0x") + d[(v >> 4) & 15] + d[v & 15];
}

int read_component_index(ByteReader& seg, int num_components) {
  return num_components < 257 ? seg.u8() : seg.u16();
}

// A.6.1, Table A.15 (SPcod) or A.6.2, Table A.23 (SPcoc).
Result<ComponentCoding> parse_component_coding(ByteReader& seg, bool precincts, const char* name) {
  ComponentCoding cc;
  size_t off = seg.offset();
  cc.levels = seg.u8();
  uint8_t xcb = seg.u8(), ycb = seg.u8();
  size_t style_off = seg.offset();
  uint8_t style = seg.u8();
  size_t transform_off = seg.offset();
  uint8_t transform = seg.u8();
  if (!seg.ok()) return truncated(name, seg);
  if (cc.levels > 32) return corrupt_at(name, off, "decomposition levels " + std::to_string(cc.levels) + " > 32");
  cc.xcb = xcb + 2;
  cc.ycb = ycb + 2;
  if (cc.xcb > 10) return corrupt_at(name, off + 1, "code-block width exponent " + std::to_string(cc.xcb) + " > 10");
  if (cc.ycb > 10) return corrupt_at(name, off + 2, "code-block height exponent " + std::to_string(cc.ycb) + " > 10");
  if (cc.xcb + cc.ycb > 12)
    return corrupt_at(name, off + 1, "code-block exponents " + std::to_string(cc.xcb) + " + " + std::to_string(cc.ycb) + " > 12");
  // 15444-15 Table A.4: bit 6 HT code-blocks, bits 6 and 7 HTMIXED; bit 7
  // alone is reserved.
  if ((style & 0xC0) == 0x80) return corrupt_at(name, style_off, "reserved code-block style bit 7 set without bit 6");
  cc.style = CodeBlockStyle::from_byte(style);
  if (transform > 1)
    return Status(ErrorCode::kUnsupported, std::string(name) + " at byte " + std::to_string(transform_off) +
                                                ": wavelet transform " + std::to_string(transform) + " (15444-2)");
  cc.reversible = transform == 1;
  if (precincts) {
    cc.precinct_exponents.resize(cc.levels + 1);
    for (int r = 0; r <= cc.levels; ++r) {
      uint8_t b = seg.u8();
      cc.precinct_exponents[r] = {static_cast<uint8_t>(b & 0x0F), static_cast<uint8_t>(b >> 4)};
      if (r > 0 && ((b & 0x0F) == 0 || (b >> 4) == 0))
        return corrupt_at(name, seg.offset() - 1, "precinct exponent 0 at resolution " + std::to_string(r));
    }
    if (!seg.ok()) return truncated(name, seg);
  }
  return cc;
}

// A.6.4, Tables A.28..A.30 (Sqcx and SPqcx).
Result<Quantization> parse_quantization(ByteReader& seg, const char* name) {
  Quantization q;
  size_t off = seg.offset();
  uint8_t sq = seg.u8();
  if (!seg.ok()) return truncated(name, seg);
  int style = sq & 0x1F;
  q.guard_bits = sq >> 5;
  if (style > 2) return corrupt_at(name, off, "quantization style " + std::to_string(style));
  q.style = static_cast<QuantizationStyle>(style);
  if (q.style == QuantizationStyle::kNone) {
    while (!seg.at_end()) q.steps.push_back({seg.u8() >> 3, 0});
  } else {
    size_t n = q.style == QuantizationStyle::kScalarDerived ? 1 : seg.remaining() / 2;
    for (size_t i = 0; i < n; ++i) {
      uint16_t v = seg.u16();
      q.steps.push_back({v >> 11, v & 0x7FF});
    }
  }
  if (!seg.ok() || q.steps.empty()) return corrupt_at(name, off, "no step sizes");
  return q;
}

}  // namespace

Result<ImageAndTileSize> parse_siz(ByteReader& seg, const ParseLimits& limits) {
  ImageAndTileSize s;
  size_t off = seg.offset();
  s.rsiz = seg.u16();
  s.xsiz = seg.u32();
  s.ysiz = seg.u32();
  s.xosiz = seg.u32();
  s.yosiz = seg.u32();
  s.xtsiz = seg.u32();
  s.ytsiz = seg.u32();
  s.xtosiz = seg.u32();
  s.ytosiz = seg.u32();
  size_t csiz_off = seg.offset();
  uint16_t csiz = seg.u16();
  if (!seg.ok()) return truncated("SIZ", seg);
  if (csiz < 1 || csiz > 16384) return corrupt_at("SIZ", csiz_off, "Csiz " + std::to_string(csiz) + " outside 1..16384");
  // Table A.9: Lsiz = 38 + 3 * Csiz; the segment body is Lsiz - 2.
  if (seg.size() != 36 + 3 * size_t{csiz})
    return corrupt_at("SIZ", off - 2, "Lsiz " + std::to_string(seg.size() + 2) + " for " + std::to_string(csiz) +
                                         " components (expected " + std::to_string(38 + 3 * csiz) + ")");
  if (csiz > limits.max_components)
    return at("SIZ", csiz_off, resource_limit("Csiz " + std::to_string(csiz) + " above the limit " + std::to_string(limits.max_components)));
  s.components.resize(csiz);
  for (auto& c : s.components) {
    size_t coff = seg.offset();
    uint8_t ssiz = seg.u8();
    c.is_signed = (ssiz & 0x80) != 0;
    c.precision = (ssiz & 0x7F) + 1;
    c.dx = seg.u8();
    c.dy = seg.u8();
    if (c.precision > 38) return corrupt_at("SIZ", coff, "precision " + std::to_string(c.precision) + " > 38");
    if (c.dx == 0 || c.dy == 0) return corrupt_at("SIZ", coff + 1, "subsampling factor 0");
  }
  if (Status st = check_image_and_tile_size(s, limits); !st.ok()) return at("SIZ", off, st);
  return s;
}

Result<CodingStyle> parse_cod(ByteReader& seg) {
  CodingStyle cod;
  size_t off = seg.offset();
  uint8_t scod = seg.u8();
  uint8_t order = seg.u8();
  uint16_t layers = seg.u16();
  uint8_t mct = seg.u8();
  if (!seg.ok()) return truncated("COD", seg);
  if (scod & 0xF8)
    return Status(ErrorCode::kUnsupported, "COD at byte " + std::to_string(off) + ": Scod " + hex(scod) + " has bits beyond Part 1");
  cod.sop = (scod & 2) != 0;
  cod.eph = (scod & 4) != 0;
  if (order > 4) return corrupt_at("COD", off + 1, "progression order " + std::to_string(order) + " > 4");
  cod.order = static_cast<ProgressionOrder>(order);
  if (layers == 0) return corrupt_at("COD", off + 2, "0 layers");
  cod.layers = layers;
  if (mct > 1)
    return Status(ErrorCode::kUnsupported, "COD at byte " + std::to_string(off + 4) + ": multiple component transform " +
                                               std::to_string(mct) + " (15444-2)");
  cod.multiple_component_transform = mct == 1;
  MALLAT_ASSIGN_OR_RETURN(cod.component, parse_component_coding(seg, (scod & 1) != 0, "COD"));
  return cod;
}

Result<std::pair<int, ComponentCoding>> parse_coc(ByteReader& seg, int num_components) {
  size_t off = seg.offset();
  int c = read_component_index(seg, num_components);
  uint8_t scoc = seg.u8();
  if (!seg.ok()) return truncated("COC", seg);
  if (c >= num_components) return corrupt_at("COC", off, "component " + std::to_string(c) + " >= Csiz " + std::to_string(num_components));
  if (scoc & 0xFE) return Status(ErrorCode::kUnsupported, "COC at byte " + std::to_string(off) + ": Scoc has bits beyond Part 1");
  MALLAT_ASSIGN_OR_RETURN(auto cc, parse_component_coding(seg, (scoc & 1) != 0, "COC"));
  return std::pair<int, ComponentCoding>{c, std::move(cc)};
}

Result<Quantization> parse_qcd(ByteReader& seg) { return parse_quantization(seg, "QCD"); }

Result<std::pair<int, Quantization>> parse_qcc(ByteReader& seg, int num_components) {
  size_t off = seg.offset();
  int c = read_component_index(seg, num_components);
  if (!seg.ok()) return truncated("QCC", seg);
  if (c >= num_components) return corrupt_at("QCC", off, "component " + std::to_string(c) + " >= Csiz " + std::to_string(num_components));
  MALLAT_ASSIGN_OR_RETURN(auto q, parse_quantization(seg, "QCC"));
  return std::pair<int, Quantization>{c, std::move(q)};
}

Result<RegionOfInterest> parse_rgn(ByteReader& seg, int num_components) {
  size_t off = seg.offset();
  RegionOfInterest roi;
  roi.component = read_component_index(seg, num_components);
  uint8_t srgn = seg.u8();
  roi.shift = seg.u8();
  if (!seg.ok()) return truncated("RGN", seg);
  if (roi.component >= num_components)
    return corrupt_at("RGN", off, "component " + std::to_string(roi.component) + " >= Csiz " + std::to_string(num_components));
  if (srgn != 0) return Status(ErrorCode::kUnsupported, "RGN at byte " + std::to_string(off) + ": ROI style " + std::to_string(srgn) + " (15444-2)");
  return roi;
}

Result<std::vector<ProgressionChange>> parse_poc(ByteReader& seg, int num_components) {
  const bool wide = num_components >= 257;
  const size_t entry = wide ? 9 : 7;  // Table A.32
  if (seg.size() == 0 || seg.size() % entry != 0)
    return corrupt_at("POC", seg.base_offset(), "Lpoc " + std::to_string(seg.size() + 2) + " is not 2 + n * " + std::to_string(entry));
  std::vector<ProgressionChange> out;
  while (!seg.at_end()) {
    size_t off = seg.offset();
    ProgressionChange p;
    p.resolution_start = seg.u8();
    p.component_start = wide ? seg.u16() : seg.u8();
    p.layer_end = seg.u16();
    p.resolution_end = seg.u8();
    int ce = wide ? seg.u16() : seg.u8();
    if (ce == 0) ce = wide ? 16384 : 256;
    p.component_end = std::min(ce, num_components);
    uint8_t order = seg.u8();
    if (order > 4) return corrupt_at("POC", off + entry - 1, "progression order " + std::to_string(order) + " > 4");
    p.order = static_cast<ProgressionOrder>(order);
    if (Status st = check_progression_change(p, num_components); !st.ok()) return at("POC", off, st);
    out.push_back(p);
  }
  return out;
}

Result<StartOfTile> parse_sot(ByteReader& seg) {
  StartOfTile s;
  if (seg.size() != 8) return corrupt_at("SOT", seg.base_offset() - 2, "Lsot " + std::to_string(seg.size() + 2) + " != 10");
  s.tile = seg.u16();
  s.psot = seg.u32();
  s.part = seg.u8();
  s.num_parts = seg.u8();
  return s;
}

Result<std::vector<TilePartLength>> parse_tlm(ByteReader& seg, int* index) {
  size_t off = seg.offset();
  int z = seg.u8();
  uint8_t stlm = seg.u8();
  if (!seg.ok()) return truncated("TLM", seg);
  int st = (stlm >> 4) & 3;  // Table A.35: size of Ttlm
  bool sp = (stlm >> 6) & 1;  // size of Ptlm: 16 or 32 bits
  if (st == 3 || (stlm & 0x8F)) return corrupt_at("TLM", off + 1, "Stlm " + hex(stlm) + " invalid");
  size_t entry = st + (sp ? 4 : 2);
  if (seg.remaining() % entry != 0) return corrupt_at("TLM", off, "length is not a whole number of entries");
  std::vector<TilePartLength> out;
  out.reserve(seg.remaining() / entry);
  while (!seg.at_end()) {
    TilePartLength t;
    t.tile = st == 0 ? -1 : st == 1 ? seg.u8() : seg.u16();
    t.length = sp ? seg.u32() : seg.u16();
    out.push_back(t);
  }
  if (index) *index = z;
  return out;
}

Result<std::vector<ComponentRegistration>> parse_crg(ByteReader& seg, int num_components) {
  if (seg.size() != 4 * size_t(num_components))
    return corrupt_at("CRG", seg.base_offset(), "Lcrg " + std::to_string(seg.size() + 2) + " for " + std::to_string(num_components) + " components");
  std::vector<ComponentRegistration> out(num_components);
  for (auto& c : out) {
    c.x = seg.u16();
    c.y = seg.u16();
  }
  return out;
}

Result<Comment> parse_com(ByteReader& seg) {
  Comment c;
  c.registration = seg.u16();
  if (!seg.ok()) return truncated("COM", seg);
  auto rest = seg.rest();
  c.data.assign(rest.begin(), rest.end());
  return c;
}

Result<std::vector<uint32_t>> decode_packet_lengths(std::span<const uint8_t> bytes, size_t base_offset) {
  std::vector<uint32_t> out;
  uint64_t v = 0;
  int n = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    v = v << 7 | (bytes[i] & 0x7F);
    if (++n > 5 || v > UINT32_MAX) return corrupt_at("packet length", base_offset + i, "more than 32 bits");
    if (!(bytes[i] & 0x80)) {
      out.push_back(static_cast<uint32_t>(v));
      v = 0;
      n = 0;
    }
  }
  if (n != 0) return corrupt_at("packet length", base_offset + bytes.size(), "last length is unterminated");
  return out;
}

}  // namespace mallat::codec
