#include "codec/codestream/codestream_reader.h"

#include <gtest/gtest.h>

#include "codec/codestream/effective_params.h"
#include "codec/codestream/markers.h"
#include "tests/codec/codec_test_util.h"
#include "tests/testdata.h"

namespace mallat::codec {
namespace {

using mallat::codec::testing::files_with_extension;
using mallat::codec::testing::read_bytes;

std::filesystem::path conformance() { return mallat::testing::testdata_dir() / "conformance"; }

// Facts about some conformance streams, copied from `opj_dump -i <file>`
// (OpenJPEG 2.5): image x0,y0,x1,y1, tile tdx,tdy,tx0,ty0, tw x th,
// numcomps, component 0 prec/dx/dy, and the default tile's prg, numlayers,
// mct, numresolutions - 1, cblkw/cblkh exponents, cblksty, qmfbid, qntsty,
// numgbits, and "Main header end position".
struct Facts {
  const char* file;
  uint32_t x0, y0, x1, y1, tdx, tdy, tx0, ty0, tw, th;
  int numcomps, prec, dx, dy;
  int prg, layers, mct, levels, cbw, cbh, cblksty, qmfbid, qntsty, gbits;
  size_t main_header_end;
};

const Facts kFacts[] = {
    {"p0_01.j2k", 0, 0, 128, 128, 128, 128, 0, 0, 1, 1, 1, 8, 1, 1, 1, 1, 0, 3, 6, 6, 0x00, 1, 0, 2, 74},
    {"p0_02.j2k", 0, 0, 127, 126, 127, 126, 0, 0, 1, 1, 1, 8, 2, 1, 0, 6, 0, 3, 5, 5, 0x34, 1, 0, 3, 134},
    {"p0_03.j2k", 0, 0, 256, 256, 128, 128, 0, 0, 2, 2, 1, 4, 1, 1, 3, 8, 0, 1, 6, 6, 0x00, 1, 0, 2, 298},
    {"p0_04.j2k", 0, 0, 640, 480, 640, 480, 0, 0, 1, 1, 3, 8, 1, 1, 1, 20, 1, 6, 6, 6, 0x04, 0, 2, 3, 250},
    {"p0_09.j2k", 0, 0, 17, 37, 17, 37, 0, 0, 1, 1, 1, 8, 1, 1, 0, 1, 0, 5, 6, 6, 0x00, 0, 2, 1, 114},
    {"p0_10.j2k", 0, 0, 256, 256, 128, 128, 0, 0, 2, 2, 3, 8, 4, 4, 0, 2, 1, 3, 6, 6, 0x00, 1, 0, 0, 80},
    {"p0_12.j2k", 0, 0, 3, 5, 3, 5, 0, 0, 1, 1, 1, 8, 1, 1, 0, 1, 0, 3, 5, 5, 0x04, 1, 0, 3, 121},
    {"p1_01.j2k", 5, 128, 127, 227, 127, 126, 1, 101, 1, 1, 1, 8, 2, 1, 0, 5, 0, 3, 5, 5, 0x34, 1, 0, 3, 132},
    {"p1_04.j2k", 0, 0, 1024, 1024, 128, 128, 0, 0, 8, 8, 1, 12, 1, 1, 0, 1, 0, 3, 6, 6, 0x00, 0, 2, 2, 374},
    {"p1_05.j2k", 17, 12, 529, 524, 37, 37, 8, 2, 15, 15, 3, 8, 1, 1, 3, 2, 1, 7, 3, 6, 0x19, 0, 2, 3, 100711},
    {"p1_07.j2k", 4, 0, 12, 12, 12, 12, 4, 0, 1, 1, 2, 8, 4, 1, 2, 1, 0, 1, 6, 6, 0x00, 1, 0, 2, 133},
};

TEST(CodestreamReader, ConformanceFactsMatchOpjDump) {
  MALLAT_REQUIRE_TESTDATA("conformance");
  for (const Facts& f : kFacts) {
    SCOPED_TRACE(f.file);
    auto bytes = read_bytes(conformance() / f.file);
    auto cs = parse_codestream(bytes);
    ASSERT_TRUE(cs.ok()) << cs.status().to_string();
    const MainHeader& m = cs->main;
    const ImageAndTileSize& s = m.siz;
    EXPECT_EQ(s.xosiz, f.x0);
    EXPECT_EQ(s.yosiz, f.y0);
    EXPECT_EQ(s.xsiz, f.x1);
    EXPECT_EQ(s.ysiz, f.y1);
    EXPECT_EQ(s.xtsiz, f.tdx);
    EXPECT_EQ(s.ytsiz, f.tdy);
    EXPECT_EQ(s.xtosiz, f.tx0);
    EXPECT_EQ(s.ytosiz, f.ty0);
    EXPECT_EQ(s.tiles_x(), f.tw);
    EXPECT_EQ(s.tiles_y(), f.th);
    ASSERT_EQ(static_cast<int>(s.components.size()), f.numcomps);
    EXPECT_EQ(s.components[0].precision, f.prec);
    EXPECT_EQ(s.components[0].dx, f.dx);
    EXPECT_EQ(s.components[0].dy, f.dy);
    EXPECT_EQ(static_cast<int>(m.cod.order), f.prg);
    EXPECT_EQ(m.cod.layers, f.layers);
    EXPECT_EQ(m.cod.multiple_component_transform, f.mct == 1);
    auto cc = effective_component_coding(m, nullptr, 0);
    EXPECT_EQ(cc.levels, f.levels);
    EXPECT_EQ(cc.xcb, f.cbw);
    EXPECT_EQ(cc.ycb, f.cbh);
    EXPECT_EQ(cc.style.to_byte(), f.cblksty);
    EXPECT_EQ(cc.reversible, f.qmfbid == 1);
    auto q = effective_quantization(m, nullptr, 0);
    EXPECT_EQ(static_cast<int>(q.style), f.qntsty);
    EXPECT_EQ(q.guard_bits, f.gbits);
    EXPECT_EQ(m.end_offset, f.main_header_end);
    EXPECT_EQ(cs->tiles.size(), size_t{f.tw} * f.th);
  }
}

TEST(CodestreamReader, P0_01StepSizesMatchOpjDump) {
  MALLAT_REQUIRE_TESTDATA("conformance/p0_01.j2k");
  auto bytes = read_bytes(conformance() / "p0_01.j2k");
  auto m = parse_main_header(bytes);
  ASSERT_TRUE(m.ok()) << m.status().to_string();
  // opj_dump: stepsizes (m,e)=(0,8) (0,9) (0,9) (0,10) (0,9) (0,9) (0,10) (0,9) (0,9) (0,10)
  const int e[] = {8, 9, 9, 10, 9, 9, 10, 9, 9, 10};
  ASSERT_EQ(m->qcd.steps.size(), 10u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(m->qcd.steps[i].exponent, e[i]);
}

TEST(CodestreamReader, P0_13Has257ComponentsWithWideIndices) {
  MALLAT_REQUIRE_TESTDATA("conformance/p0_13.j2k");
  auto bytes = read_bytes(conformance() / "p0_13.j2k");
  auto cs = parse_codestream(bytes);
  ASSERT_TRUE(cs.ok()) << cs.status().to_string();
  // opj_dump: numcomps=257, 256 components with cblksty=0x10 and cblk 2^5, one with 2^6.
  EXPECT_EQ(cs->main.siz.components.size(), 257u);
  // the marker list of opj_dump shows RGN and POC in the main header
  EXPECT_FALSE(cs->main.rgn.empty());
  EXPECT_FALSE(cs->main.poc.empty());
  auto tp = tile_coding_parameters(cs->main, &cs->tiles[0].overrides, 0);
  ASSERT_TRUE(tp.ok()) << tp.status().to_string();
  EXPECT_EQ(tp->components.size(), 257u);
  int blocks5 = 0, style10 = 0;
  for (int c = 0; c < 257; ++c) {
    auto cc = effective_component_coding(cs->main, &cs->tiles[0].overrides, c);
    blocks5 += cc.xcb == 5;
    style10 += cc.style.to_byte() == 0x10;
  }
  EXPECT_EQ(blocks5, 256);
  EXPECT_EQ(style10, 256);
}

// Every tile-part's data lies inside the stream, the tile-parts tile the
// stream between the main header and EOC, and every tile has its parameters.
TEST(CodestreamReader, EveryConformanceStreamParses) {
  MALLAT_REQUIRE_TESTDATA("conformance");
  auto files = files_with_extension(conformance(), ".j2k");
  ASSERT_GE(files.size(), 20u);
  for (const auto& p : files) {
    SCOPED_TRACE(p.filename().string());
    auto bytes = read_bytes(p);
    auto cs = parse_codestream(bytes);
    ASSERT_TRUE(cs.ok()) << cs.status().to_string();
    EXPECT_TRUE(cs->has_eoc);
    EXPECT_FALSE(cs->truncated);
    size_t covered = cs->main.end_offset + 2;  // + EOC
    size_t parts = 0;
    for (const Tile& t : cs->tiles) {
      EXPECT_FALSE(t.parts.empty()) << "tile " << t.index;
      for (const TilePartHeader& tp : t.parts) {
        EXPECT_LE(tp.data_offset + tp.data_length, bytes.size());
        EXPECT_EQ(bytes[tp.header_end], 0xFF);
        EXPECT_EQ(bytes[tp.header_end + 1], 0x93);
        covered += tp.data_offset + tp.data_length - tp.sot_offset;
        ++parts;
      }
      auto tcp = tile_coding_parameters(cs->main, &t.overrides, t.index);
      EXPECT_TRUE(tcp.ok()) << tcp.status().to_string();
    }
    EXPECT_EQ(covered, bytes.size());
    // Where TLM is present it lists every tile-part with its Psot.
    if (!cs->main.tlm.empty()) {
      EXPECT_EQ(cs->main.tlm.size(), parts);
    }
  }
}

TEST(CodestreamReader, TruncatedConformanceStreamsNeverCrash) {
  MALLAT_REQUIRE_TESTDATA("conformance");
  for (const char* name : {"p0_01.j2k", "p0_03.j2k", "p0_09.j2k", "p0_13.j2k", "p1_06.j2k", "p1_07.j2k", "p1_04.j2k"}) {
    SCOPED_TRACE(name);
    auto bytes = read_bytes(conformance() / name);
    ASSERT_FALSE(bytes.empty());
    size_t step = std::max<size_t>(1, bytes.size() / 400);
    for (size_t cut = 0; cut < bytes.size(); cut += step) {
      std::span<const uint8_t> part(bytes.data(), cut);
      auto cs = parse_codestream(part);
      if (cs.ok()) {
        EXPECT_FALSE(cs->has_eoc && cut + 2 < bytes.size() && cs->truncated);
        for (const Tile& t : cs->tiles)
          for (const TilePartHeader& tp : t.parts) EXPECT_LE(tp.data_offset + tp.data_length, cut);
      } else {
        EXPECT_FALSE(cs.status().message().empty());
      }
    }
  }
}

// Flipping single bytes of headers never crashes and never makes anything
// point outside the stream.
TEST(CodestreamReader, CorruptedHeaderBytesNeverCrash) {
  MALLAT_REQUIRE_TESTDATA("conformance");
  for (const char* name : {"p0_03.j2k", "p0_13.j2k", "p1_05.j2k"}) {
    SCOPED_TRACE(name);
    auto bytes = read_bytes(conformance() / name);
    auto clean = parse_codestream(bytes);
    ASSERT_TRUE(clean.ok());
    size_t header = std::min<size_t>({clean->main.end_offset + 64, size_t{1200}, bytes.size()});
    for (size_t i = 0; i < header; i += 3) {
      for (uint8_t v : {uint8_t{0x00}, uint8_t{0xFF}, static_cast<uint8_t>(bytes[i] ^ 0x55)}) {
        auto copy = bytes;
        copy[i] = v;
        auto cs = parse_codestream(copy);
        if (!cs.ok()) continue;
        for (const Tile& t : cs->tiles)
          for (const TilePartHeader& tp : t.parts) EXPECT_LE(tp.data_offset + tp.data_length, copy.size());
      }
    }
  }
}

TEST(CodestreamReader, MalformedCodestreamsParseOrFailCleanly) {
  MALLAT_REQUIRE_TESTDATA("malformed");
  auto files = files_with_extension(mallat::testing::testdata_dir() / "malformed", ".jpc");
  ASSERT_FALSE(files.empty());
  for (const auto& p : files) {
    SCOPED_TRACE(p.filename().string());
    auto bytes = read_bytes(p);
    auto cs = parse_codestream(bytes);
    if (!cs.ok()) {
      EXPECT_FALSE(cs.status().message().empty());
    }
  }
}

TEST(CodestreamReader, RejectsStreamWithoutSoc) {
  const uint8_t d[] = {0xFF, 0x51, 0x00, 0x02};
  auto cs = parse_codestream(d);
  ASSERT_FALSE(cs.ok());
  EXPECT_EQ(cs.status().code(), ErrorCode::kCorruptData);
  EXPECT_NE(cs.status().message().find("SOC at byte 0"), std::string::npos);
}

TEST(CodestreamReader, PpmSplitsAcrossSegments) {
  MainHeader m;
  // Nppm = 3 for the first tile-part, split over two PPM segments, then Nppm = 1.
  m.ppm = {{0, 0, 0, 3, 0xA1}, {0xA2, 0xA3, 0, 0, 0, 1, 0xB1}};
  auto parts = ppm_tile_part_headers(m);
  ASSERT_TRUE(parts.ok()) << parts.status().to_string();
  ASSERT_EQ(parts->size(), 2u);
  EXPECT_EQ((*parts)[0], (std::vector<uint8_t>{0xA1, 0xA2, 0xA3}));
  EXPECT_EQ((*parts)[1], (std::vector<uint8_t>{0xB1}));
  m.ppm = {{0, 0, 1, 0, 0xA1}};
  EXPECT_FALSE(ppm_tile_part_headers(m).ok());
}

}  // namespace
}  // namespace mallat::codec
