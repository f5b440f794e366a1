// `mallat encode` with -POC, -TP, --ppm, --ppt and -ROI: what --help says,
// the usage errors (exit 2, naming the option, no output file), and that a
// good value reaches the codestream.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "codec/codestream/codestream_reader.h"
#include "io/file.h"
#include "tests/testdata.h"
#include "tests/tools/cli_run.h"

namespace mallat {
namespace {

namespace fs = std::filesystem;

int run(const std::string& args, std::string* out, const fs::path& dir) {
  return testing::run_mallat(args, out, dir);
}

TEST(EncodeFeaturesCli, HelpNamesTheOptions) {
  const fs::path dir = testing::make_temp_dir("encfeat-cli-help");
  std::string out;
  ASSERT_EQ(run("encode --help", &out, dir), 0);
  for (const char* option : {"-POC", "-TP R|L|C", "--ppm", "--ppt", "-ROI c=C,U=S", "mallat only"})
    EXPECT_NE(out.find(option), std::string::npos) << option;
  fs::remove_all(dir);
}

TEST(EncodeFeaturesCli, BadValuesAreUsageErrorsNamingTheOption) {
  MALLAT_REQUIRE_TESTDATA("images/pngsuite/basn2c08.png");
  const fs::path dir = testing::make_temp_dir("encfeat-cli-bad");
  const std::string head = "encode -i " + (testing::testdata_dir() / "images/pngsuite/basn2c08.png").string() +
                           " -o " + (dir / "x.j2k").string() + " ";
  struct Case {
    const char* args;
    const char* named;
  };
  const Case cases[] = {
      {"-POC T0=0,0,1,5,3,CPRL", "-POC"},        // tiles count from 1
      {"-POC T1=0,0,1,5,3,XYZW", "-POC"},        // no such order
      {"-POC T1=3,0,1,2,3,LRCP", "-POC"},        // RSpoc >= REpoc
      {"-POC T1=0,0,1,5", "-POC"},               // fields missing
      {"-POC T1=0,0,1,5,3,LRCP/", "-POC"},       // empty change
      {"-TP X", "-TP"},
      {"-ROI c=0", "-ROI"},
      {"-ROI c=0,U=38", "-ROI"},
      {"-ROI c=0,U=3 -ROI c=0,U=4", "-ROI"},
      {"--ppm --ppt", "--ppm"},
  };
  for (const Case& c : cases) {
    std::string out;
    EXPECT_EQ(run(head + c.args, &out, dir), 2) << c.args << ": " << out;
    EXPECT_NE(out.find(c.named), std::string::npos) << c.args << ": " << out;
    EXPECT_FALSE(fs::exists(dir / "x.j2k")) << c.args;
  }
  // Values the syntax allows but the image does not: an error (exit 1), no file.
  std::string out;
  EXPECT_EQ(run(head + "-POC T2=0,0,1,5,3,CPRL", &out, dir), 1) << out;
  EXPECT_NE(out.find("tile"), std::string::npos) << out;
  EXPECT_EQ(run(head + "-ROI c=3,U=2", &out, dir), 1) << out;
  EXPECT_NE(out.find("ROI"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir / "x.j2k"));
  fs::remove_all(dir);
}

TEST(EncodeFeaturesCli, GoodValuesReachTheCodestream) {
  MALLAT_REQUIRE_TESTDATA("images/pngsuite/basn2c08.png");
  const fs::path dir = testing::make_temp_dir("encfeat-cli-good");
  const fs::path target = dir / "x.j2k";
  std::string out;
  ASSERT_EQ(run("encode -i " + (testing::testdata_dir() / "images/pngsuite/basn2c08.png").string() + " -o " +
                    target.string() + " -t 16,16 -POC T2=0,0,1,6,3,CPRL -TP R -TLM --ppt -ROI c=2,U=7",
                &out, dir),
            0) << out;
  auto bytes = io::read_file(target);
  ASSERT_TRUE(bytes.ok());
  auto cs = codec::parse_codestream(*bytes);
  ASSERT_TRUE(cs.ok()) << cs.status().to_string();
  ASSERT_EQ(cs->tiles.size(), 4u);
  EXPECT_TRUE(cs->tiles[0].overrides.poc.empty());
  ASSERT_FALSE(cs->tiles[1].overrides.poc.empty());  // T2 is the second tile
  EXPECT_EQ(cs->tiles[1].overrides.poc[0], (codec::ProgressionChange{0, 0, 1, 6, 3, codec::ProgressionOrder::kCPRL}));
  // 16x16 tiles: 5 resolutions (the default 6 shrinks to fit); in LRCP one
  // tile-part per resolution, in tile 1's CPRL one per resolution of each
  // component.
  for (const codec::Tile& t : cs->tiles) {
    EXPECT_EQ(t.parts.size(), t.index == 1 ? 15u : 5u) << "tile " << t.index;
    for (const codec::TilePartHeader& p : t.parts) EXPECT_FALSE(p.ppt.empty());
  }
  EXPECT_EQ(cs->main.tlm.size(), 30u);
  ASSERT_EQ(cs->main.rgn.size(), 1u);
  EXPECT_EQ(cs->main.rgn[0], (codec::RegionOfInterest{2, 7}));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mallat
