// `mallat info` for JPEG 2000 files: the codestream's SIZ and, for a JP2
// file, what its header boxes say (I.5.3): colour specification (with the
// ICC profile's class and colour space), palette, component mapping,
// channel definitions and resolution.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "codec/api/profile.h"
#include "codec/codestream/codestream_reader.h"
#include "codec/jp2/jp2_boxes.h"
#include "io/file.h"
#include "tools/commands.h"

namespace mallat::tools {
namespace {

std::string four_cc(const std::vector<uint8_t>& p, size_t at) {
  if (p.size() < at + 4) return "????";
  std::string s(p.begin() + static_cast<std::ptrdiff_t>(at), p.begin() + static_cast<std::ptrdiff_t>(at + 4));
  for (char& c : s)
    if (c < 32 || c > 126) c = '?';
  return s;
}

const char* channel_type_name(uint16_t t) {
  switch (t) {
    case 0: return "colour";
    case 1: return "opacity";
    case 2: return "premultiplied opacity";
    default: return "unspecified";
  }
}

// I.5.3.7.1: grid points per metre = N / D * 10^E; also per inch.
void print_resolution(const char* what, const codec::ResolutionBox& r) {
  auto per_metre = [](uint16_t n, uint16_t d, int8_t e) { return d ? n / double(d) * std::pow(10.0, e) : 0.0; };
  const double v = per_metre(r.vertical_num, r.vertical_den, r.vertical_exp);
  const double h = per_metre(r.horizontal_num, r.horizontal_den, r.horizontal_exp);
  std::printf("  %s resolution: %.6g x %.6g per metre (%.6g x %.6g dpi), horizontal x vertical\n", what, h, v,
              h * 0.0254, v * 0.0254);
}

void print_jp2_header(const codec::Jp2File& f) {
  for (size_t i = 0; i < f.colour.size(); ++i) {
    const codec::ColourSpecification& c = f.colour[i];
    std::printf("  colr at byte %zu%s: ", c.offset,
                &c == codec::first_colour_specification(f) ? "" : " (ignored: only the first counts)");
    if (c.method == 1) {
      std::printf("enumerated %u (%s)\n", c.enumerated, codec::enumerated_colour_space(c.enumerated).name);
    } else if (c.method == 2) {
      std::printf("restricted ICC profile, %zu bytes, class '%s', data '%s', connection space '%s'\n",
                  c.icc_profile.size(), four_cc(c.icc_profile, 12).c_str(), four_cc(c.icc_profile, 16).c_str(),
                  four_cc(c.icc_profile, 20).c_str());
    } else {
      std::printf("method %d (not 15444-1)\n", c.method);
    }
  }
  if (f.palette) {
    std::printf("  pclr: %zu entries, %zu columns:", f.palette->entries.size(), f.palette->column_depth.size());
    for (size_t c = 0; c < f.palette->column_depth.size(); ++c)
      std::printf(" %d bits %s", f.palette->bits(static_cast<int>(c)), f.palette->is_signed(static_cast<int>(c)) ? "signed" : "unsigned");
    std::printf("\n");
  }
  for (size_t i = 0; i < f.component_mapping.size(); ++i) {
    const codec::ComponentMapping& m = f.component_mapping[i];
    if (m.mapping_type == 1)
      std::printf("  cmap: channel %zu = palette column %d indexed by component %d\n", i, m.palette_column, m.component);
    else
      std::printf("  cmap: channel %zu = component %d\n", i, m.component);
  }
  for (const codec::ChannelDefinition& d : f.channel_definitions) {
    std::printf("  cdef: channel %d is %s", d.channel, channel_type_name(d.type));
    if (d.association == 0) std::printf(", of the whole image\n");
    else if (d.association == 65535) std::printf(", of no colour\n");
    else std::printf(", of colour %d\n", d.association);
  }
  if (f.capture_resolution) print_resolution("capture", *f.capture_resolution);
  if (f.display_resolution) print_resolution("display", *f.display_resolution);
}

// The block coder of a code-block style (A.6.1 Table A.19; 15444-15 Table
// A.4) and its mode switches.
std::string block_coding_name(const codec::CodeBlockStyle& s) {
  if (s.ht) return s.ht_mixed ? "HT and Part 1 mixed (HTMIXED, 15444-15)" : "HT (HTJ2K, 15444-15)";
  std::string n = "Part 1 (EBCOT)";
  const char* names[] = {"BYPASS", "RESET", "TERMALL", "VSC", "ERTERM", "SEGMARK"};
  for (int b = 0; b < 6; ++b) {
    if (s.to_byte() & (1 << b)) n += std::string(" ") + names[b];
  }
  return n;
}

// The main header's coding choices (COD, COC) and capabilities (Rsiz, CAP,
// CPF).
void print_coding(const codec::MainHeader& m) {
  static const char* orders[] = {"LRCP", "RLCP", "RPCL", "PCRL", "CPRL"};
  const codec::ComponentCoding& cc = m.cod.component;
  const auto order = static_cast<size_t>(m.cod.order);
  std::printf("  coding: %s, %d level%s, %s, %d layer%s, %s, code-blocks %dx%d\n", block_coding_name(cc.style).c_str(),
              cc.levels, cc.levels == 1 ? "" : "s", cc.reversible ? "reversible 5/3" : "irreversible 9/7",
              m.cod.layers, m.cod.layers == 1 ? "" : "s", order < 5 ? orders[order] : "?", 1 << cc.xcb, 1 << cc.ycb);
  for (const auto& [c, coc] : m.coc) {
    std::printf("  component %d coding: %s, %d levels, %s\n", c, block_coding_name(coc.style).c_str(), coc.levels,
                coc.reversible ? "reversible 5/3" : "irreversible 9/7");
  }
  std::printf("  Rsiz 0x%04X%s\n", m.siz.rsiz, (m.siz.rsiz & codec::kRsizCapabilities) ? " (extended capabilities)" : "");
  std::printf("  profile: %s\n", codec::describe_rsiz(m.siz.rsiz).c_str());
  if (!m.cap.empty()) {
    std::printf("  CAP: Pcap 0x%08X\n", m.cap.pcap);
    if (auto c15 = m.cap.part(15)) {
      std::printf("    Ccap15 0x%04X: %s\n", *c15, codec::HtCapabilities::from_ccap15(*c15).describe().c_str());
    }
  }
  if (!m.cpf.empty()) {
    std::printf("  CPF:");
    for (uint16_t p : m.cpf) std::printf(" 0x%04X", p);
    std::printf("\n");
  }
}

}  // namespace

bool is_jpeg2000_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  uint8_t head[12] = {};
  in.read(reinterpret_cast<char*>(head), sizeof head);
  return codec::detect_container({head, static_cast<size_t>(in.gcount())}) != codec::Container::kUnknown;
}

int jpeg2000_info(const std::string& path) {
  auto data = io::read_file(path);
  if (!data.ok()) return fail("info", data.status().message());
  codec::Jp2File jp2;
  std::span<const uint8_t> stream(*data);
  const bool is_jp2 = codec::detect_container(*data) == codec::Container::kJp2;
  if (is_jp2) {
    auto parsed = codec::parse_jp2(*data);
    if (!parsed.ok()) return fail("info", path + ": " + parsed.status().message());
    jp2 = std::move(*parsed);
    stream = stream.subspan(jp2.codestream_offset, jp2.codestream_length);
  }
  auto cs = codec::parse_codestream(stream);
  if (!cs.ok()) return fail("info", path + ": " + cs.status().message());
  const codec::ImageAndTileSize& siz = cs->main.siz;
  const char* kind = !is_jp2 ? "JPEG 2000 codestream" : jp2.brand == codec::box::kBrandJph ? "JPH" : "JP2";
  std::printf("%s: %s, %lldx%lld, %zu component%s, %zu tile%s\n", path.c_str(), kind,
              static_cast<long long>(siz.xsiz - siz.xosiz), static_cast<long long>(siz.ysiz - siz.yosiz),
              siz.components.size(), siz.components.size() == 1 ? "" : "s", cs->tiles.size(),
              cs->tiles.size() == 1 ? "" : "s");
  for (size_t c = 0; c < siz.components.size(); ++c) {
    const codec::ComponentSize& k = siz.components[c];
    std::printf("  component %zu: %d bits %s, sub-sampling %dx%d\n", c, k.precision, k.is_signed ? "signed" : "unsigned",
                k.dx, k.dy);
  }
  print_coding(cs->main);
  if (is_jp2) print_jp2_header(jp2);
  return 0;
}

}  // namespace mallat::tools
