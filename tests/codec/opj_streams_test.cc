// Streams made at test time by OpenJPEG's opj_compress (installed in CI),
// with options that exercise tile-parts, SOP/EPH, precincts, PLT, TLM, POC
// and offsets. The expected values follow from the options and were checked
// with opj_dump -i on the same streams.
#include <gtest/gtest.h>

#include <cstdlib>
#include <numeric>
#include <string>

#include "codec/codestream/codestream_reader.h"
#include "codec/codestream/effective_params.h"
#include "codec/jp2/jp2_boxes.h"
#include "tests/codec/codec_test_util.h"
#include "tests/testdata.h"

namespace mallat::codec {
namespace {

using mallat::codec::testing::read_bytes;

class OpjStreams : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(std::system("command -v opj_compress > /dev/null 2>&1"), 0) << "opj_compress is not installed (tools/quickstart.sh installs it)";
    MALLAT_REQUIRE_TESTDATA("images/Bretagne1.ppm");
    dir_ = mallat::testing::make_temp_dir("opj-streams");
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  // opj_compress Bretagne1.ppm (640x480 RGB) with `options` into `name`.
  std::vector<uint8_t> compress(const std::string& name, const std::string& options) {
    auto out = dir_ / name;
    std::string cmd = "opj_compress -i '" + (mallat::testing::testdata_dir() / "images/Bretagne1.ppm").string() + "' -o '" +
                      out.string() + "' " + options + " > /dev/null 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    return read_bytes(out);
  }
  std::filesystem::path dir_;
};

TEST_F(OpjStreams, TilePartsPerResolutionWithSopEph) {
  auto bytes = compress("a.j2k", "-t 128,128 -n 4 -b 32,32 -p RPCL -r 40,20,10 -SOP -EPH -TP R");
  auto cs = parse_codestream(bytes);
  ASSERT_TRUE(cs.ok()) << cs.status().to_string();
  EXPECT_TRUE(cs->warnings.empty());
  const auto& m = cs->main;
  EXPECT_EQ(m.siz.xsiz, 640u);
  EXPECT_EQ(m.siz.ysiz, 480u);
  ASSERT_EQ(cs->tiles.size(), 20u);  // 5 x 4 tiles of 128
  EXPECT_TRUE(m.cod.sop);
  EXPECT_TRUE(m.cod.eph);
  EXPECT_EQ(m.cod.order, ProgressionOrder::kRPCL);
  EXPECT_EQ(m.cod.layers, 3);
  EXPECT_EQ(m.cod.component.levels, 3);
  EXPECT_EQ(m.cod.component.xcb, 5);
  for (const Tile& t : cs->tiles) {
    ASSERT_EQ(t.parts.size(), 4u) << t.index;  // one tile-part per resolution
    for (size_t p = 0; p < 4; ++p) {
      EXPECT_EQ(t.parts[p].part, static_cast<int>(p));
      EXPECT_EQ(t.parts[p].num_parts, 4);
      // SOP (0xFF91) opens the packet data of every tile-part.
      EXPECT_EQ(bytes[t.parts[p].data_offset], 0xFF);
      EXPECT_EQ(bytes[t.parts[p].data_offset + 1], 0x91);
    }
  }
}

TEST_F(OpjStreams, PltLengthsAddUpAndTlmMatches) {
  auto bytes = compress("b.j2k", "-I -c [64,64],[32,32] -n 3 -PLT -TLM");
  auto cs = parse_codestream(bytes);
  ASSERT_TRUE(cs.ok()) << cs.status().to_string();
  const auto& m = cs->main;
  EXPECT_FALSE(m.cod.component.reversible);
  // opj_dump: preccintsize (w,h)=(4,4) (5,5) (6,6)
  ASSERT_EQ(m.cod.component.precinct_exponents.size(), 3u);
  EXPECT_EQ(m.cod.component.ppx(0), 4);
  EXPECT_EQ(m.cod.component.ppy(1), 5);
  EXPECT_EQ(m.cod.component.ppx(2), 6);
  ASSERT_EQ(cs->tiles.size(), 1u);
  const TilePartHeader& tp = cs->tiles[0].parts.at(0);
  ASSERT_FALSE(tp.plt.empty());
  uint64_t sum = std::accumulate(tp.plt.begin(), tp.plt.end(), uint64_t{0});
  EXPECT_EQ(sum, tp.data_length);
  ASSERT_EQ(m.tlm.size(), 1u);
  EXPECT_EQ(m.tlm[0].length, tp.data_offset + tp.data_length - tp.sot_offset);
}

TEST_F(OpjStreams, TileProgressionChanges) {
  auto bytes = compress("c.j2k", "-n 3 -t 320,240 -POC T1=0,0,1,3,3,CPRL/T1=0,0,1,4,3,LRCP");
  auto cs = parse_codestream(bytes);
  ASSERT_TRUE(cs.ok()) << cs.status().to_string();
  ASSERT_EQ(cs->tiles.size(), 4u);
  // opj_compress numbers tiles from 1: T1 is tile 0.
  const auto& poc = effective_progression_changes(cs->main, &cs->tiles[0].overrides);
  ASSERT_EQ(poc.size(), 2u);
  EXPECT_EQ(poc[0].order, ProgressionOrder::kCPRL);
  EXPECT_EQ(poc[0].resolution_end, 3);
  EXPECT_EQ(poc[0].component_end, 3);
  EXPECT_EQ(poc[0].layer_end, 1);
  EXPECT_EQ(poc[1].order, ProgressionOrder::kLRCP);
  EXPECT_EQ(poc[1].resolution_end, 4);
  EXPECT_TRUE(effective_progression_changes(cs->main, &cs->tiles[1].overrides).empty());
}

TEST_F(OpjStreams, Jp2WithImageAndTileOffsets) {
  auto bytes = compress("d.jp2", "-d 10,20 -T 5,7 -t 200,200 -M 3");
  auto jp2 = parse_jp2(bytes);
  ASSERT_TRUE(jp2.ok()) << jp2.status().to_string();
  EXPECT_EQ(jp2->ihdr.width, 640u);
  EXPECT_EQ(jp2->colour.at(0).enumerated, 16u);
  auto cs_bytes = find_codestream(bytes);
  ASSERT_TRUE(cs_bytes.ok());
  auto cs = parse_codestream(*cs_bytes);
  ASSERT_TRUE(cs.ok()) << cs.status().to_string();
  const auto& s = cs->main.siz;
  // opj_dump: x0=10, y0=20, tx0=5, ty0=7, tdx=tdy=200, tw=4, th=3, cblksty=0x3
  EXPECT_EQ(s.xosiz, 10u);
  EXPECT_EQ(s.yosiz, 20u);
  EXPECT_EQ(s.xtosiz, 5u);
  EXPECT_EQ(s.ytosiz, 7u);
  EXPECT_EQ(s.tiles_x(), 4u);
  EXPECT_EQ(s.tiles_y(), 3u);
  EXPECT_EQ(cs->main.cod.component.style.to_byte(), 0x3);
  for (const Tile& t : cs->tiles) EXPECT_EQ(t.parts.size(), 1u);
}

}  // namespace
}  // namespace mallat::codec
