#include "codec/jp2/jp2_boxes.h"

#include <algorithm>
#include <string>

#include "codec/codestream/byte_reader.h"
#include "codec/codestream/byte_writer.h"

namespace mallat::codec {
namespace {

std::string type_name(uint32_t t) {
  std::string s;
  for (int shift = 24; shift >= 0; shift -= 8) {
    char c = static_cast<char>(t >> shift);
    s += (c >= 32 && c < 127) ? c : '?';
  }
  return "'" + s + "'";
}

// I.4: LBox, TBox, and XLBox when LBox = 1; LBox = 0 runs to the end of the
// enclosing span. `contents` is bounded by the box (clipped, with
// `clipped` set, when the box runs past its container).
struct Box {
  uint32_t type = 0;
  size_t offset = 0;
  ByteReader contents;
  bool clipped = false;
};

Result<Box> read_box(ByteReader& r) {
  Box b;
  b.offset = r.offset();
  uint64_t len = r.u32();
  b.type = r.u32();
  if (!r.ok()) return corrupt_at("box", b.offset, "box header cut short");
  uint64_t header = 8;
  if (len == 1) {
    len = r.u64();
    header = 16;
    if (!r.ok()) return corrupt_at("box " + type_name(b.type), b.offset, "XLBox cut short");
  } else if (len == 0) {
    len = header + r.remaining();
  }
  if (len < header)
    return corrupt_at("box " + type_name(b.type), b.offset, "length " + std::to_string(len) + " shorter than its header");
  uint64_t body = len - header;
  if (body > r.remaining()) {
    b.clipped = true;
    body = r.remaining();
  }
  b.contents = r.sub(static_cast<size_t>(body));
  return b;
}

Status parse_ihdr(ByteReader& c, ImageHeader& h) {
  size_t off = c.offset();
  h.height = c.u32();
  h.width = c.u32();
  h.num_components = c.u16();
  h.bpc = c.u8();
  h.compression = c.u8();
  h.colourspace_unknown = c.u8() != 0;
  h.intellectual_property = c.u8() != 0;
  if (!c.ok()) return corrupt_at("ihdr", off, "box too short");
  if (h.height == 0 || h.width == 0 || h.num_components == 0 || h.num_components > 16384)
    return corrupt_at("ihdr", off, "empty image or " + std::to_string(h.num_components) + " components");
  if (h.bpc != 0xFF && (h.bpc & 0x7F) > 37) return corrupt_at("ihdr", off + 10, "bit depth " + std::to_string((h.bpc & 0x7F) + 1));
  if (h.compression != 7) return corrupt_at("ihdr", off + 11, "compression type " + std::to_string(h.compression) + " is not 7");
  return Status::Ok();
}

Status parse_colr(ByteReader& c, std::vector<ColourSpecification>& out) {
  size_t off = c.offset();
  ColourSpecification s;
  s.method = c.u8();
  s.precedence = static_cast<int8_t>(c.u8());
  s.approximation = c.u8();
  if (!c.ok()) return corrupt_at("colr", off, "box too short");
  if (s.method == 1) {
    s.enumerated = c.u32();
    if (!c.ok()) return corrupt_at("colr", off, "no EnumCS");
  } else if (s.method == 2 || s.method == 3) {
    auto rest = c.rest();
    s.icc_profile.assign(rest.begin(), rest.end());
  }
  out.push_back(std::move(s));  // other methods (15444-2) are kept for the caller to ignore
  return Status::Ok();
}

Status parse_pclr(ByteReader& c, Palette& p) {
  size_t off = c.offset();
  uint16_t ne = c.u16();
  uint8_t npc = c.u8();
  if (!c.ok()) return corrupt_at("pclr", off, "box too short");
  if (ne < 1 || ne > 1024 || npc < 1) return corrupt_at("pclr", off, std::to_string(ne) + " entries of " + std::to_string(npc) + " columns");
  auto depths = c.bytes(npc);
  if (!c.ok()) return corrupt_at("pclr", off, "box too short for the column depths");
  p.column_depth.assign(depths.begin(), depths.end());
  size_t entry_bytes = 0;
  for (int i = 0; i < npc; ++i) {
    if (p.bits(i) > 38) return corrupt_at("pclr", off + 3 + i, "column depth " + std::to_string(p.bits(i)) + " > 38");
    entry_bytes += (p.bits(i) + 7) / 8;
  }
  if (c.remaining() < entry_bytes * ne) return corrupt_at("pclr", off, "box too short for " + std::to_string(ne) + " entries");
  p.entries.assign(ne, std::vector<int64_t>(npc));
  for (auto& e : p.entries) {
    for (int i = 0; i < npc; ++i) {
      int bits = p.bits(i);
      uint64_t v = 0;
      for (int b = 0; b < (bits + 7) / 8; ++b) v = v << 8 | c.u8();
      v &= bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
      int64_t s = static_cast<int64_t>(v);
      if (p.is_signed(i) && (v >> (bits - 1)) & 1) s -= int64_t{1} << bits;
      e[i] = s;
    }
  }
  return Status::Ok();
}

Status parse_res(ByteReader& c, Jp2File& f) {
  while (!c.at_end()) {
    MALLAT_ASSIGN_OR_RETURN(Box b, read_box(c));
    if (b.type != box::kCaptureResolution && b.type != box::kDisplayResolution) continue;
    ResolutionBox r;
    r.vertical_num = b.contents.u16();
    r.vertical_den = b.contents.u16();
    r.horizontal_num = b.contents.u16();
    r.horizontal_den = b.contents.u16();
    r.vertical_exp = static_cast<int8_t>(b.contents.u8());
    r.horizontal_exp = static_cast<int8_t>(b.contents.u8());
    if (!b.contents.ok()) return corrupt_at(type_name(b.type), b.offset, "box too short");
    (b.type == box::kCaptureResolution ? f.capture_resolution : f.display_resolution) = r;
  }
  return Status::Ok();
}

// I.5.3: the boxes of jp2h; ihdr comes first. Without `strict`, quirks
// whose intent is clear are accepted with a warning, as OpenJPEG's jp2.c
// does: a second ihdr is ignored (the first counts), and a pclr without the
// cmap that I.5.3.4 requires beside it is dropped (the components decode as
// they are).
Status parse_header_box(ByteReader& c, Jp2File& f, bool strict) {
  bool first = true, have_ihdr = false;
  while (!c.at_end()) {
    MALLAT_ASSIGN_OR_RETURN(Box b, read_box(c));
    if (b.clipped) return corrupt_at(type_name(b.type), b.offset, "box runs past jp2h");
    ByteReader& in = b.contents;
    switch (b.type) {
      case box::kImageHeader:
        if (have_ihdr && strict) return corrupt_at("ihdr", b.offset, "second ihdr");
        if (have_ihdr) {
          f.warnings.push_back("second ihdr at byte " + std::to_string(b.offset) + " ignored: the first counts");
          break;
        }
        if (!first) f.warnings.push_back("ihdr is not the first box of jp2h");
        MALLAT_RETURN_IF_ERROR(parse_ihdr(in, f.ihdr));
        have_ihdr = true;
        break;
      case box::kBitsPerComponent: {
        auto rest = in.rest();
        f.bits_per_component.assign(rest.begin(), rest.end());
        break;
      }
      case box::kColour:
        MALLAT_RETURN_IF_ERROR(parse_colr(in, f.colour));
        f.colour.back().offset = b.offset;
        break;
      case box::kPalette: {
        if (f.palette) return corrupt_at("pclr", b.offset, "second pclr");
        Palette p;
        MALLAT_RETURN_IF_ERROR(parse_pclr(in, p));
        p.offset = b.offset;
        f.palette = std::move(p);
        break;
      }
      case box::kComponentMapping:
        if (!f.component_mapping.empty()) return corrupt_at("cmap", b.offset, "second cmap");
        if (in.size() % 4 != 0) return corrupt_at("cmap", b.offset, "length is not a multiple of 4");
        f.component_mapping_offset = b.offset;
        while (!in.at_end()) {
          ComponentMapping m;
          m.component = in.u16();
          m.mapping_type = in.u8();
          m.palette_column = in.u8();
          f.component_mapping.push_back(m);
        }
        break;
      case box::kChannelDefinition: {
        if (!f.channel_definitions.empty()) return corrupt_at("cdef", b.offset, "second cdef");
        uint16_t n = in.u16();
        if (!in.ok() || in.remaining() < 6 * size_t{n}) return corrupt_at("cdef", b.offset, "box too short");
        if (n == 0) return corrupt_at("cdef", b.offset, "no channel descriptions");
        f.channel_definition_offset = b.offset;
        for (int i = 0; i < n; ++i) f.channel_definitions.push_back({in.u16(), in.u16(), in.u16()});
        break;
      }
      case box::kResolution:
        MALLAT_RETURN_IF_ERROR(parse_res(in, f));
        break;
      default:
        f.warnings.push_back("skipped box " + type_name(b.type) + " in jp2h at byte " + std::to_string(b.offset));
        break;
    }
    first = false;
  }
  if (!have_ihdr) return corrupt_at("jp2h", c.base_offset(), "no ihdr");
  if (f.ihdr.bpc == 0xFF && f.bits_per_component.size() != f.ihdr.num_components)
    return corrupt_at("jp2h", c.base_offset(), "ihdr says depths vary but bpcc has " + std::to_string(f.bits_per_component.size()) +
                                                   " of " + std::to_string(f.ihdr.num_components));
  if (f.colour.empty()) return corrupt_at("jp2h", c.base_offset(), "no colr");
  // I.5.3.4, I.5.3.5: a palette needs a component mapping that points into it.
  if (f.palette && f.component_mapping.empty()) {
    if (strict) return corrupt_at("jp2h", c.base_offset(), "pclr without cmap");
    f.warnings.push_back("pclr at byte " + std::to_string(f.palette->offset) +
                         " without cmap: the palette is ignored, the components are decoded as they are");
    f.palette.reset();
  }
  if (f.palette) {
    for (const auto& m : f.component_mapping)
      if (m.mapping_type > 1)
        return corrupt_at("cmap", f.component_mapping_offset, "mapping type " + std::to_string(m.mapping_type) + " (0 or 1)");
      else if (m.mapping_type == 1 && m.palette_column >= f.palette->column_depth.size())
        return corrupt_at("cmap", f.component_mapping_offset, "mapping to palette column " + std::to_string(m.palette_column) +
                                                                  " of " + std::to_string(f.palette->column_depth.size()));
  } else if (!f.component_mapping.empty()) {
    f.warnings.push_back("cmap at byte " + std::to_string(f.component_mapping_offset) + " without pclr: ignored");
    f.component_mapping.clear();
  }
  return Status::Ok();
}

// I.5.4: jp2c around `codestream`, with XLBox when LBox cannot hold it.
void write_codestream_box_header(ByteWriter& w, uint64_t codestream_bytes) {
  uint64_t len = 8 + codestream_bytes;
  if (len > UINT32_MAX) {
    w.u32(1);
    w.u32(box::kCodestream);
    w.u64(len + 8);
  } else {
    w.u32(static_cast<uint32_t>(len));
    w.u32(box::kCodestream);
  }
}

}  // namespace

Container detect_container(std::span<const uint8_t> b) {
  if (b.size() >= 4 && b[0] == 0xFF && b[1] == 0x4F && b[2] == 0xFF && b[3] == 0x51) return Container::kCodestream;
  static const uint8_t sig[12] = {0, 0, 0, 12, 'j', 'P', ' ', ' ', 0x0D, 0x0A, 0x87, 0x0A};
  if (b.size() >= 12 && std::equal(sig, sig + 12, b.begin())) return Container::kJp2;
  return Container::kUnknown;
}

Result<Jp2File> parse_jp2(std::span<const uint8_t> file, bool strict) {
  if (detect_container(file) != Container::kJp2) return corrupt_at("JP2 signature", 0, "not a JP2 file");
  Jp2File f;
  ByteReader r(file);
  r.skip(12);
  bool have_ftyp = false, have_header = false, have_codestream = false;
  while (!r.at_end()) {
    auto rb = read_box(r);
    if (!rb.ok()) {
      if (have_codestream) {  // junk after the codestream does not matter
        f.warnings.push_back(rb.status().message());
        break;
      }
      return rb.status();
    }
    Box& b = *rb;
    if (b.clipped && b.type != box::kCodestream) {
      if (have_codestream) {
        f.warnings.push_back("box " + type_name(b.type) + " cut short by the end of the file");
        break;
      }
      return corrupt_at("box " + type_name(b.type), b.offset, "runs past the end of the file");
    }
    switch (b.type) {
      case box::kFileType:
        if (have_ftyp) return corrupt_at("ftyp", b.offset, "second ftyp");
        have_ftyp = true;
        f.brand = b.contents.u32();
        f.minor_version = b.contents.u32();
        if (!b.contents.ok() || b.contents.remaining() % 4 != 0) return corrupt_at("ftyp", b.offset, "bad length");
        while (!b.contents.at_end()) f.compatibility.push_back(b.contents.u32());
        break;
      case box::kHeader:
        if (have_header) return corrupt_at("jp2h", b.offset, "second jp2h");
        MALLAT_RETURN_IF_ERROR(parse_header_box(b.contents, f, strict));
        have_header = true;
        break;
      case box::kCodestream:
        if (have_codestream) break;  // only the first one counts (I.5.4)
        if (!have_header) return corrupt_at("jp2c", b.offset, "codestream before jp2h");
        if (b.clipped) f.warnings.push_back("jp2c cut short by the end of the file");
        f.codestream_offset = b.contents.base_offset();
        f.codestream_length = b.contents.size();
        have_codestream = true;
        break;
      default:
        f.warnings.push_back("skipped box " + type_name(b.type) + " at byte " + std::to_string(b.offset));
        break;
    }
  }
  if (!have_ftyp) f.warnings.push_back("no ftyp box");
  else if (std::find(f.compatibility.begin(), f.compatibility.end(), box::kBrandJp2) == f.compatibility.end() &&
           std::find(f.compatibility.begin(), f.compatibility.end(), box::kBrandJph) == f.compatibility.end())
    f.warnings.push_back("ftyp lists neither 'jp2 ' nor 'jph ' as compatible");
  if (!have_header) return corrupt_at("JP2", file.size(), "no jp2h box");
  if (!have_codestream) return corrupt_at("JP2", file.size(), "no jp2c box");
  return f;
}

Result<std::span<const uint8_t>> find_codestream(std::span<const uint8_t> bytes) {
  switch (detect_container(bytes)) {
    case Container::kCodestream:
      return bytes;
    case Container::kJp2: {
      // Read in place rather than moved out of the Result: gcc 13 warns
      // (-Wmaybe-uninitialized) on the moved-from optional<Palette>.
      const Result<Jp2File> f = parse_jp2(bytes);
      if (!f.ok()) return f.status();
      return bytes.subspan(f->codestream_offset, f->codestream_length);
    }
    default:
      return corrupt_data("neither a JPEG 2000 codestream nor a JP2 file");
  }
}

EnumeratedColourSpaceMeaning enumerated_colour_space(uint32_t enumerated) {
  switch (static_cast<EnumeratedColourSpace>(enumerated)) {
    case EnumeratedColourSpace::kSRGB: return {"sRGB", ColorSpace::kRgb};
    case EnumeratedColourSpace::kGreyscale: return {"greyscale", ColorSpace::kGray};
    case EnumeratedColourSpace::kSYCC: return {"sYCC", ColorSpace::kYcc};
  }
  return {"not a 15444-1 space", ColorSpace::kUnknown};
}

const ColourSpecification* first_colour_specification(const Jp2File& jp2) {
  return jp2.colour.empty() ? nullptr : &jp2.colour.front();
}

EnumeratedColourSpace default_colour_space(int num_components) {
  return num_components >= 3 ? EnumeratedColourSpace::kSRGB : EnumeratedColourSpace::kGreyscale;
}

Result<std::vector<uint8_t>> write_jp2(const ImageAndTileSize& siz, std::span<const uint8_t> codestream,
                                       const Jp2Description& description) {
  MALLAT_ASSIGN_OR_RETURN(std::vector<uint8_t> out, jp2_before_codestream(siz, codestream.size(), description));
  out.insert(out.end(), codestream.begin(), codestream.end());
  return out;
}

Result<std::vector<uint8_t>> jp2_before_codestream(const ImageAndTileSize& siz, uint64_t codestream_bytes,
                                                   const Jp2Description& description) {
  const size_t nc = siz.components.size();
  if (nc < 1 || nc > 16384 || siz.xsiz <= siz.xosiz || siz.ysiz <= siz.yosiz)
    return invalid_argument("write_jp2: invalid image size");
  ByteWriter w;
  // I.5.1 signature box.
  w.u32(12);
  w.u32(box::kSignature);
  w.u32(box::kSignatureContent);
  // I.5.2 ftyp.
  w.u32(20);
  w.u32(box::kFileType);
  w.u32(description.brand);
  w.u32(0);
  w.u32(description.brand);
  // I.5.3 jp2h.
  size_t header_at = w.size();
  w.u32(0);
  w.u32(box::kHeader);
  auto depth = [](const ComponentSize& c) { return static_cast<uint8_t>((c.precision - 1) | (c.is_signed ? 0x80 : 0)); };
  bool same = true;
  for (const auto& c : siz.components) {
    if (c.precision < 1 || c.precision > 38) return invalid_argument("write_jp2: precision " + std::to_string(c.precision));
    same = same && depth(c) == depth(siz.components[0]);
  }
  w.u32(22);
  w.u32(box::kImageHeader);
  w.u32(siz.ysiz - siz.yosiz);
  w.u32(siz.xsiz - siz.xosiz);
  w.u16(static_cast<uint16_t>(nc));
  w.u8(same ? depth(siz.components[0]) : 0xFF);
  w.u8(7);  // compression: 15444-1
  w.u8(0);  // colour space known
  w.u8(0);  // no intellectual property box
  if (!same) {
    w.u32(static_cast<uint32_t>(8 + nc));
    w.u32(box::kBitsPerComponent);
    for (const auto& c : siz.components) w.u8(depth(c));
  }
  // I.5.3.3: colr, method 2 (restricted ICC) or 1 (enumerated).
  const auto& icc = description.icc_profile;
  if (!icc.empty()) {
    if (icc.size() > UINT32_MAX - 11) return invalid_argument("write_jp2: ICC profile too large");
    w.u32(static_cast<uint32_t>(11 + icc.size()));
    w.u32(box::kColour);
    w.u8(2);
    w.u8(0);
    w.u8(0);
    w.bytes(icc);
  } else {
    w.u32(15);
    w.u32(box::kColour);
    w.u8(1);  // enumerated
    w.u8(0);
    w.u8(0);
    w.u32(static_cast<uint32_t>(description.colour.value_or(default_colour_space(static_cast<int>(nc)))));
  }
  // I.5.3.6: cdef, one entry per channel given.
  if (!description.channels.empty()) {
    if (description.channels.size() > nc) return invalid_argument("write_jp2: more channel definitions than components");
    w.u32(static_cast<uint32_t>(10 + 6 * description.channels.size()));
    w.u32(box::kChannelDefinition);
    w.u16(static_cast<uint16_t>(description.channels.size()));
    for (const ChannelDefinition& d : description.channels) {
      if (d.channel >= nc) return invalid_argument("write_jp2: channel definition for channel " + std::to_string(d.channel));
      w.u16(d.channel);
      w.u16(d.type);
      w.u16(d.association);
    }
  }
  w.patch_u32(header_at, static_cast<uint32_t>(w.size() - header_at));
  write_codestream_box_header(w, codestream_bytes);
  return w.take();
}

Result<std::vector<uint8_t>> replace_jp2_codestream(std::span<const uint8_t> file,
                                                    std::span<const uint8_t> codestream, uint32_t brand) {
  // Checks the file as a decoder would first, so that what is kept is sound.
  MALLAT_ASSIGN_OR_RETURN(const Jp2File parsed, parse_jp2(file));
  const uint32_t other = brand == box::kBrandJph ? box::kBrandJp2 : box::kBrandJph;
  ByteWriter w;
  ByteReader r(file);
  bool replaced = false;
  while (!r.at_end()) {
    const size_t at = r.offset();
    auto rb = read_box(r);
    if (!rb.ok()) break;  // junk after the codestream, as parse_jp2 allows
    const Box& b = *rb;
    if (b.type == box::kFileType) {
      // I.5.2: BR, MinV, then the CLi list.
      const size_t length_at = w.size();
      w.u32(0);  // LBox, set below
      w.u32(box::kFileType);
      w.u32(brand);
      w.u32(parsed.minor_version);
      size_t entries = 0;
      for (uint32_t c : parsed.compatibility) {
        if (c == other || c == brand) continue;
        w.u32(c);
        ++entries;
      }
      w.u32(brand);
      w.patch_u32(length_at, static_cast<uint32_t>(16 + 4 * (entries + 1)));
    } else if (b.type == box::kCodestream && !replaced) {
      write_codestream_box_header(w, codestream.size());
      w.bytes(codestream);
      replaced = true;
    } else {
      w.bytes(file.subspan(at, r.offset() - at));
    }
  }
  if (!replaced) return corrupt_data("JP2: no jp2c box to replace");
  return w.take();
}

}  // namespace mallat::codec
