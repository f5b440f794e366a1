#include "codec/codestream/marker_writer.h"

#include <gtest/gtest.h>

#include "codec/codestream/byte_reader.h"
#include "codec/codestream/codestream_reader.h"
#include "codec/codestream/effective_params.h"
#include "codec/codestream/marker_reader.h"
#include "codec/codestream/markers.h"
#include "codec/tier2/tile_parts.h"

namespace mallat::codec {
namespace {

ImageAndTileSize make_siz(int num_components, uint32_t x0 = 3, uint32_t y0 = 5) {
  ImageAndTileSize s;
  s.xsiz = 300;
  s.ysiz = 200;
  s.xosiz = x0;
  s.yosiz = y0;
  s.xtsiz = 128;
  s.ytsiz = 100;
  s.xtosiz = 1;
  s.ytosiz = 2;
  for (int c = 0; c < num_components; ++c)
    s.components.push_back({1 + (c * 7) % 38, c % 2 == 1, 1 + c % 3, 1 + (c * 5) % 4});
  return s;
}

ComponentCoding make_coding(int levels, bool precincts, int seed) {
  ComponentCoding cc;
  cc.levels = levels;
  cc.xcb = 2 + seed % 7;
  cc.ycb = 12 - cc.xcb - seed % 2;
  cc.style = CodeBlockStyle::from_byte(static_cast<uint8_t>(seed * 11 % 64));
  cc.reversible = seed % 2 == 0;
  if (precincts)
    for (int r = 0; r <= levels; ++r)
      cc.precinct_exponents.push_back({static_cast<uint8_t>(r == 0 ? 0 : 1 + (r + seed) % 15),
                                       static_cast<uint8_t>(r == 0 ? 15 : 1 + (r * 3 + seed) % 15)});
  return cc;
}

Quantization make_quant(QuantizationStyle style, int levels, int seed) {
  Quantization q;
  q.style = style;
  q.guard_bits = seed % 8;
  size_t n = style == QuantizationStyle::kScalarDerived ? 1 : 3 * levels + 1;
  for (size_t i = 0; i < n; ++i)
    q.steps.push_back({static_cast<int>((i * 7 + seed) % 32), style == QuantizationStyle::kNone ? 0 : static_cast<int>((i * 331 + seed) % 2048)});
  return q;
}

// Reads back the one segment at the start of w's bytes.
ByteReader segment_of(const std::vector<uint8_t>& b, uint16_t want) {
  ByteReader r(b);
  EXPECT_EQ(r.u16(), want);
  uint16_t len = r.u16();
  EXPECT_EQ(len + 2u, b.size());
  return r.sub(len - 2);
}

TEST(MarkerWriter, SizRoundTrips) {
  for (int nc : {1, 3, 4, 257, 1000}) {
    ImageAndTileSize s = make_siz(nc);
    s.rsiz = static_cast<uint16_t>(nc);
    ByteWriter w;
    ASSERT_TRUE(write_siz(w, s).ok());
    auto seg = segment_of(w.data(), marker::kSIZ);
    auto back = parse_siz(seg);
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    EXPECT_EQ(*back, s);
  }
}

TEST(MarkerWriter, CodRoundTripsWithVariedValues) {
  for (int seed = 0; seed < 40; ++seed) {
    CodingStyle cod;
    cod.sop = seed & 1;
    cod.eph = seed & 2;
    cod.order = static_cast<ProgressionOrder>(seed % 5);
    cod.layers = 1 + seed * 1637 % 65535;
    cod.multiple_component_transform = seed & 4;
    cod.component = make_coding(seed % 33, seed % 3 == 0, seed);
    ByteWriter w;
    ASSERT_TRUE(write_cod(w, cod).ok()) << seed;
    auto seg = segment_of(w.data(), marker::kCOD);
    auto back = parse_cod(seg);
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    EXPECT_EQ(*back, cod) << seed;
  }
}

TEST(MarkerWriter, CocAndQccUseWideIndicesFrom257Components) {
  for (int nc : {3, 256, 257, 16384}) {
    ComponentCoding cc = make_coding(4, true, nc);
    Quantization q = make_quant(QuantizationStyle::kScalarExpounded, 4, nc);
    ByteWriter w1, w2;
    ASSERT_TRUE(write_coc(w1, nc - 1, cc, nc).ok());
    ASSERT_TRUE(write_qcc(w2, nc - 1, q, nc).ok());
    auto s1 = segment_of(w1.data(), marker::kCOC);
    auto s2 = segment_of(w2.data(), marker::kQCC);
    EXPECT_EQ(s1.size(), (nc < 257 ? 1u : 2u) + 1 + 5 + 5);
    auto coc = parse_coc(s1, nc);
    auto qcc = parse_qcc(s2, nc);
    ASSERT_TRUE(coc.ok()) << coc.status().to_string();
    ASSERT_TRUE(qcc.ok()) << qcc.status().to_string();
    EXPECT_EQ(coc->first, nc - 1);
    EXPECT_EQ(coc->second, cc);
    EXPECT_EQ(qcc->first, nc - 1);
    EXPECT_EQ(qcc->second, q);
  }
}

TEST(MarkerWriter, QcdRoundTripsAllStyles) {
  for (auto style : {QuantizationStyle::kNone, QuantizationStyle::kScalarDerived, QuantizationStyle::kScalarExpounded}) {
    for (int levels : {0, 1, 5, 32}) {
      Quantization q = make_quant(style, levels, levels + 3);
      ByteWriter w;
      ASSERT_TRUE(write_qcd(w, q).ok());
      auto seg = segment_of(w.data(), marker::kQCD);
      auto back = parse_qcd(seg);
      ASSERT_TRUE(back.ok()) << back.status().to_string();
      EXPECT_EQ(*back, q);
    }
  }
}

TEST(MarkerWriter, RgnPocComCrgTlmPltRoundTrip) {
  for (int nc : {2, 300}) {
    RegionOfInterest roi{nc - 1, 37};
    ByteWriter w;
    ASSERT_TRUE(write_rgn(w, roi, nc).ok());
    auto seg = segment_of(w.data(), marker::kRGN);
    auto r = parse_rgn(seg, nc);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(*r, roi);

    std::vector<ProgressionChange> poc = {{0, 0, 5, 3, nc, ProgressionOrder::kRPCL},
                                          {1, nc - 1, 65535, 33, nc, ProgressionOrder::kCPRL}};
    ByteWriter wp;
    ASSERT_TRUE(write_poc(wp, poc, nc).ok());
    auto sp = segment_of(wp.data(), marker::kPOC);
    auto p = parse_poc(sp, nc);
    ASSERT_TRUE(p.ok()) << p.status().to_string();
    EXPECT_EQ(*p, poc);

    std::vector<ComponentRegistration> crg(nc, {7, 65535});
    ByteWriter wc;
    ASSERT_TRUE(write_crg(wc, crg, nc).ok());
    auto sc = segment_of(wc.data(), marker::kCRG);
    auto c = parse_crg(sc, nc);
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(*c, crg);
  }
  Comment com{1, {'m', 'a', 'l', 'l', 'a', 't'}};
  ByteWriter wm;
  ASSERT_TRUE(write_com(wm, com).ok());
  auto sm = segment_of(wm.data(), marker::kCOM);
  auto m = parse_com(sm);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(*m, com);

  std::vector<TilePartLength> tlm = {{0, 14}, {3, 70000}, {65534, 1u << 31}};
  ByteWriter wt;
  ASSERT_TRUE(write_tlm(wt, tlm).ok());
  auto st = segment_of(wt.data(), marker::kTLM);
  int z = -1;
  auto t = parse_tlm(st, &z);
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  EXPECT_EQ(z, 0);
  EXPECT_EQ(*t, tlm);

  std::vector<uint32_t> lengths = {0, 1, 127, 128, 16383, 16384, 0xFFFFFFFFu, 300};
  ByteWriter wl;
  ASSERT_TRUE(write_plt(wl, lengths).ok());
  auto sl = segment_of(wl.data(), marker::kPLT);
  EXPECT_EQ(sl.u8(), 0);
  auto l = decode_packet_lengths(sl.rest(), 0);
  ASSERT_TRUE(l.ok()) << l.status().to_string();
  EXPECT_EQ(*l, lengths);
}

TEST(MarkerWriter, RejectsInvalidValues) {
  ByteWriter w;
  CodingStyle cod;
  cod.component.xcb = 11;
  Status s = write_cod(w, cod);
  EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(s.message().find("COD"), std::string::npos);
  cod.component.xcb = 6;
  cod.layers = 0;
  EXPECT_FALSE(write_cod(w, cod).ok());
  Quantization q;
  EXPECT_FALSE(write_qcd(w, q).ok());  // no steps
  ImageAndTileSize siz = make_siz(1);
  siz.xtosiz = 10;  // > XOsiz
  EXPECT_FALSE(write_siz(w, siz).ok());
  EXPECT_FALSE(write_coc(w, 3, ComponentCoding{}, 3).ok());
}

// A codestream with everything the writer can write, split into tiles and
// tile-parts, reads back equal.
TEST(MarkerWriter, CodestreamRoundTrip) {
  MainHeader m;
  m.siz = make_siz(3, 0, 0);
  m.siz.xtosiz = m.siz.ytosiz = 0;
  m.cod.order = ProgressionOrder::kRPCL;
  m.cod.layers = 4;
  m.cod.sop = true;
  m.cod.component = make_coding(5, true, 2);
  m.coc[2] = make_coding(3, false, 5);
  m.qcd = make_quant(QuantizationStyle::kScalarExpounded, 5, 1);
  m.qcc[1] = make_quant(QuantizationStyle::kScalarDerived, 5, 4);
  m.qcc[2] = make_quant(QuantizationStyle::kNone, 3, 6);
  m.rgn = {{1, 9}};
  m.poc = {{0, 0, 4, 6, 3, ProgressionOrder::kLRCP}};
  m.crg = {{0, 0}, {32768, 0}, {0, 32768}};
  m.comments = {{1, {'h', 'i'}}, {0, {0, 1, 2}}};

  CodingOverrides t1;
  CodingStyle tcod = m.cod;
  tcod.component = make_coding(2, false, 8);
  tcod.layers = 2;
  t1.cod = tcod;
  t1.qcd = make_quant(QuantizationStyle::kScalarExpounded, 2, 9);
  t1.coc[0] = make_coding(4, false, 3);
  t1.qcc[0] = make_quant(QuantizationStyle::kNone, 4, 3);
  t1.rgn = {{2, 4}};
  CodingOverrides t1b;
  t1b.poc = {{0, 1, 2, 3, 3, ProgressionOrder::kPCRL}};

  const std::vector<uint8_t> d0 = {1, 2, 3}, d1 = {}, d2(70000, 0xAB), d3 = {9};
  const uint32_t tiles = m.siz.tiles_x() * m.siz.tiles_y();
  ASSERT_EQ(tiles, 6u);
  std::vector<TilePartToWrite> parts;
  parts.push_back({1, 0, 2, &t1, {3, 0}, d0, {}, 0});
  parts.push_back({0, 0, 0, nullptr, {}, d1, {}, 0});
  parts.push_back({1, 1, 2, &t1b, {70000}, d2, {}, 0});
  parts.push_back({5, 0, 1, nullptr, {}, d3, {}, 0});
  for (bool with_tlm : {false, true}) {
    auto bytes = write_codestream(m, parts, with_tlm);
    ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
    auto cs = parse_codestream(*bytes);
    ASSERT_TRUE(cs.ok()) << cs.status().to_string();
    EXPECT_TRUE(cs->warnings.empty()) << cs->warnings[0];
    EXPECT_TRUE(cs->has_eoc);
    const MainHeader& b = cs->main;
    EXPECT_EQ(b.siz, m.siz);
    EXPECT_EQ(b.cod, m.cod);
    EXPECT_EQ(b.coc, m.coc);
    EXPECT_EQ(b.qcd, m.qcd);
    EXPECT_EQ(b.qcc, m.qcc);
    EXPECT_EQ(b.rgn, m.rgn);
    EXPECT_EQ(b.poc, m.poc);
    EXPECT_EQ(b.crg, m.crg);
    EXPECT_EQ(b.comments, m.comments);
    ASSERT_EQ(cs->tiles.size(), 6u);
    ASSERT_EQ(cs->tiles[1].parts.size(), 2u);
    ASSERT_EQ(cs->tiles[0].parts.size(), 1u);
    ASSERT_EQ(cs->tiles[5].parts.size(), 1u);
    EXPECT_TRUE(cs->tiles[2].parts.empty());
    auto data = [&](const TilePartHeader& h) {
      return std::vector<uint8_t>(bytes->begin() + h.data_offset, bytes->begin() + h.data_offset + h.data_length);
    };
    EXPECT_EQ(data(cs->tiles[1].parts[0]), d0);
    EXPECT_EQ(data(cs->tiles[0].parts[0]), d1);
    EXPECT_EQ(data(cs->tiles[1].parts[1]), d2);
    EXPECT_EQ(data(cs->tiles[5].parts[0]), d3);
    EXPECT_EQ(cs->tiles[1].parts[0].plt, (std::vector<uint32_t>{3, 0}));
    EXPECT_EQ(cs->tiles[1].parts[1].plt, (std::vector<uint32_t>{70000}));
    EXPECT_EQ(cs->tiles[1].parts[1].num_parts, 2);
    const CodingOverrides& o = cs->tiles[1].overrides;
    ASSERT_TRUE(o.cod.has_value());
    EXPECT_EQ(*o.cod, *t1.cod);
    EXPECT_EQ(o.coc, t1.coc);
    EXPECT_EQ(*o.qcd, *t1.qcd);
    EXPECT_EQ(o.qcc, t1.qcc);
    EXPECT_EQ(o.rgn, t1.rgn);
    EXPECT_EQ(o.poc, t1b.poc);  // POC of the second tile-part joins the tile's
    if (with_tlm) {
      ASSERT_EQ(b.tlm.size(), 4u);
      EXPECT_EQ(b.tlm[2].tile, 1);
      EXPECT_EQ(b.tlm[2].length, cs->tiles[1].parts[1].data_offset + d2.size() - cs->tiles[1].parts[1].sot_offset);
    }

    // A.6 precedence: tile COC > tile COD > main COC > main COD.
    EXPECT_EQ(effective_component_coding(b, &o, 0), t1.coc.at(0));
    EXPECT_EQ(effective_component_coding(b, &o, 2), t1.cod->component);  // tile COD beats main COC
    EXPECT_EQ(effective_component_coding(b, nullptr, 2), m.coc.at(2));
    EXPECT_EQ(effective_component_coding(b, nullptr, 1), m.cod.component);
    EXPECT_EQ(effective_quantization(b, &o, 0), t1.qcc.at(0));
    EXPECT_EQ(effective_quantization(b, &o, 1), *t1.qcd);  // tile QCD beats main QCC
    EXPECT_EQ(effective_quantization(b, nullptr, 1), m.qcc.at(1));
    EXPECT_EQ(effective_roi_shift(b, &o, 1), 9);
    EXPECT_EQ(effective_roi_shift(b, &o, 2), 4);
    EXPECT_EQ(effective_coding_style(b, &o).layers, 2);
    EXPECT_EQ(effective_coding_style(b, &cs->tiles[0].overrides).layers, 4);
    auto p1 = tile_coding_parameters(b, &o, 1);
    ASSERT_TRUE(p1.ok()) << p1.status().to_string();
    EXPECT_EQ(p1->progression_changes, t1b.poc);
    auto p0 = tile_coding_parameters(b, &cs->tiles[0].overrides, 0);
    ASSERT_TRUE(p0.ok()) << p0.status().to_string();
    EXPECT_EQ(p0->progression_changes, m.poc);
  }
}

TEST(MarkerWriter, PsotZeroReachesToEoc) {
  MainHeader m;
  m.siz = make_siz(1, 0, 0);
  m.siz.xtsiz = m.siz.xsiz;
  m.siz.ytsiz = m.siz.ysiz;
  m.siz.xtosiz = m.siz.ytosiz = 0;
  m.qcd = make_quant(QuantizationStyle::kNone, 5, 0);
  ByteWriter w;
  ASSERT_TRUE(write_main_header(w, m).ok());
  begin_tile_part(w, 0, 0, 1);  // Psot stays 0
  write_sod(w);
  const uint8_t data[] = {5, 6, 7, 8};
  w.bytes(data);
  write_eoc(w);
  auto cs = parse_codestream(w.data());
  ASSERT_TRUE(cs.ok()) << cs.status().to_string();
  ASSERT_EQ(cs->tiles[0].parts.size(), 1u);
  EXPECT_EQ(cs->tiles[0].parts[0].data_length, 4u);
  EXPECT_TRUE(cs->has_eoc);
  // The same without EOC: data to the end, with a warning.
  auto no_eoc = w.data();
  no_eoc.resize(no_eoc.size() - 2);
  auto cs2 = parse_codestream(no_eoc);
  ASSERT_TRUE(cs2.ok());
  EXPECT_EQ(cs2->tiles[0].parts[0].data_length, 4u);
  EXPECT_FALSE(cs2->has_eoc);
}

// A.7.4: Nppm + Ippm per tile-part, segments of at most 65532 payload
// bytes after Zppm; the reader gets every tile-part's headers back.
TEST(MarkerWriter, PpmPayloadsSplitIppmButNeverNppm) {
  std::vector<std::vector<uint8_t>> parts;
  // 65527 bytes: 4 + 65527 leaves 1 byte in the first segment, too few for
  // the next Nppm, which must start the second segment.
  parts.push_back(std::vector<uint8_t>(65527, 0x11));
  parts.push_back(std::vector<uint8_t>(100000, 0x22));  // Ippm runs on over a segment end
  parts.push_back({});                                  // a tile-part without headers: Nppm = 0
  parts.push_back({0x33, 0x44});
  auto payloads = ppm_payloads(parts);
  ASSERT_TRUE(payloads.ok()) << payloads.status().to_string();
  ASSERT_EQ(payloads->size(), 3u);
  EXPECT_EQ((*payloads)[0].size(), 65531u);
  EXPECT_EQ((*payloads)[1][0], 0);  // Nppm of the second part starts the segment
  EXPECT_EQ((*payloads)[1][1], 0x01);
  EXPECT_EQ((*payloads)[1][2], 0x86);
  EXPECT_EQ((*payloads)[1][3], 0xA0);
  for (const auto& p : *payloads) EXPECT_LE(p.size(), 65532u);
  MainHeader m;
  m.siz = make_siz(1);
  m.qcd.steps.resize(3 * m.cod.component.levels + 1);
  m.ppm = *payloads;
  ByteWriter w;
  ASSERT_TRUE(write_main_header(w, m).ok());
  auto read = parse_main_header(w.data());
  ASSERT_TRUE(read.ok()) << read.status().to_string();
  ASSERT_EQ(read->ppm, m.ppm);
  auto back = ppm_tile_part_headers(*read);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(*back, parts);
}

// -TP: a tile-part starts wherever the divided index changes.
TEST(TileParts, StartWhereTheDividedIndexChanges) {
  // RLCP over 2 resolutions, 2 layers, 2 components, one precinct.
  std::vector<PacketId> rlcp;
  for (int r = 0; r < 2; ++r)
    for (int l = 0; l < 2; ++l)
      for (int c = 0; c < 2; ++c) rlcp.push_back({l, r, c, 0});
  EXPECT_EQ(*tile_part_starts(rlcp, TilePartDivision::kNone), (std::vector<size_t>{0}));
  EXPECT_EQ(*tile_part_starts(rlcp, TilePartDivision::kResolution), (std::vector<size_t>{0, 4}));
  EXPECT_EQ(*tile_part_starts(rlcp, TilePartDivision::kLayer), (std::vector<size_t>{0, 2, 4, 6}));
  EXPECT_EQ(*tile_part_starts(rlcp, TilePartDivision::kComponent), (std::vector<size_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(*tile_part_starts({}, TilePartDivision::kLayer), (std::vector<size_t>{0}));
  // TPsot is 8 bits: 256 tile-parts of one tile are refused.
  std::vector<PacketId> many;
  for (int l = 0; l < 256; ++l) many.push_back({l, 0, 0, 0});
  EXPECT_FALSE(tile_part_starts(many, TilePartDivision::kLayer).ok());
  many.pop_back();
  EXPECT_EQ(tile_part_starts(many, TilePartDivision::kLayer)->size(), 255u);
}

TEST(MarkerReader, ErrorsNameMarkerAndByte) {
  MainHeader m;
  m.siz = make_siz(1, 0, 0);
  m.siz.xtosiz = m.siz.ytosiz = 0;
  m.qcd = make_quant(QuantizationStyle::kNone, 5, 0);
  ByteWriter w;
  ASSERT_TRUE(write_main_header(w, m).ok());
  auto bytes = w.take();
  // SIZ has 41 + 2 bytes after SOC: COD starts at 45; its SPcod xcb byte is at 45 + 4 + 6.
  ASSERT_EQ(bytes[45], 0xFF);
  ASSERT_EQ(bytes[46], 0x52);
  bytes[45 + 4 + 6] = 9;  // xcb = 11
  auto r = parse_main_header(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "COD at byte 55: code-block width exponent 11 > 10");
}

TEST(MarkerReader, SkipsUnknownSegmentsWithWarning) {
  MainHeader m;
  m.siz = make_siz(1, 0, 0);
  m.siz.xtosiz = m.siz.ytosiz = 0;
  m.qcd = make_quant(QuantizationStyle::kNone, 5, 0);
  ByteWriter w;
  ASSERT_TRUE(write_main_header(w, m).ok());
  w.u16(0xFF77);  // a 15444-2 marker segment
  w.u16(5);
  w.u8(1);
  w.u8(2);
  w.u8(3);
  w.u16(0xFF30);  // reserved, no segment
  size_t sot = begin_tile_part(w, 0, 0, 1);
  w.u16(0xFF78);
  w.u16(2);
  write_sod(w);
  ASSERT_TRUE(end_tile_part(w, sot).ok());
  write_eoc(w);
  auto cs = parse_codestream(w.data());
  ASSERT_TRUE(cs.ok()) << cs.status().to_string();
  EXPECT_EQ(cs->warnings.size(), 3u);
  EXPECT_EQ(cs->tiles[0].parts.size(), 1u);
}

TEST(MarkerReader, RejectsHostileSiz) {
  auto siz_bytes = [](ImageAndTileSize s) {
    ByteWriter w;
    w.u16(s.rsiz);
    for (uint32_t v : {s.xsiz, s.ysiz, s.xosiz, s.yosiz, s.xtsiz, s.ytsiz, s.xtosiz, s.ytosiz}) w.u32(v);
    w.u16(static_cast<uint16_t>(s.components.size()));
    for (auto& c : s.components) {
      w.u8(static_cast<uint8_t>(c.precision - 1));
      w.u8(static_cast<uint8_t>(c.dx));
      w.u8(static_cast<uint8_t>(c.dy));
    }
    return w.take();
  };
  auto parse = [&](ImageAndTileSize s) {
    auto b = siz_bytes(s);
    ByteReader r(b);
    return parse_siz(r);
  };
  ImageAndTileSize ok = make_siz(1, 0, 0);
  ok.xtosiz = ok.ytosiz = 0;
  EXPECT_TRUE(parse(ok).ok());
  auto s = ok;
  s.xsiz = s.ysiz = 0xFFFFFFFF;
  s.xtsiz = s.ytsiz = 0xFFFFFFFF;
  EXPECT_EQ(parse(s).status().code(), ErrorCode::kResourceLimit);  // 2^64 samples
  s = ok;
  s.xtsiz = s.ytsiz = 1;
  s.xsiz = s.ysiz = 1000;
  EXPECT_EQ(parse(s).status().code(), ErrorCode::kResourceLimit);  // 10^6 tiles
  s = ok;
  s.xtsiz = 0;
  EXPECT_EQ(parse(s).status().code(), ErrorCode::kCorruptData);
  s = ok;
  s.components[0].precision = 39;
  EXPECT_EQ(parse(s).status().code(), ErrorCode::kCorruptData);
  s = ok;
  s.components[0].dx = 0;
  EXPECT_EQ(parse(s).status().code(), ErrorCode::kCorruptData);
  s = ok;
  s.xosiz = s.xsiz;
  EXPECT_EQ(parse(s).status().code(), ErrorCode::kCorruptData);
  s = ok;
  s.xtosiz = 5;  // > XOsiz = 0
  EXPECT_EQ(parse(s).status().code(), ErrorCode::kCorruptData);
  s = ok;
  s.components.clear();
  EXPECT_FALSE(parse(s).ok());
}

}  // namespace
}  // namespace mallat::codec
