// The command line's HTJ2K options (15444-15): -M 64 and --ht write HT
// code-blocks, .jhc and .jph name HT codestreams and files, other -M values
// above 63 are refused, and `mallat info` names the block coder and Ccap15.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "codec/codestream/codestream_reader.h"
#include "codec/jp2/jp2_boxes.h"
#include "io/file.h"
#include "io/image_io.h"
#include "tests/testdata.h"
#include "tests/tools/cli_run.h"

namespace mallat {
namespace {

namespace fs = std::filesystem;

TEST(HtCli, EncodeDecodeAndInfo) {
  MALLAT_REQUIRE_TESTDATA("images/Cevennes2.ppm");
  const fs::path dir = testing::make_temp_dir("ht-cli");
  const std::string image = (testing::testdata_dir() / "images/Cevennes2.ppm").string();
  auto at = [&](const char* name) { return (dir / name).string(); };
  std::string out;
  ASSERT_EQ(testing::run_mallat("encode -i " + image + " -o " + at("a.jhc") + " -M 64", &out, dir), 0) << out;
  ASSERT_EQ(testing::run_mallat("encode -i " + image + " -o " + at("b.jph") + " --ht", &out, dir), 0) << out;
  auto a = io::read_file(dir / "a.jhc");
  ASSERT_TRUE(a.ok());
  auto cs = codec::parse_codestream(*a);
  ASSERT_TRUE(cs.ok()) << cs.status().to_string();
  EXPECT_TRUE(cs->main.cod.component.style.ht);
  auto b = io::read_file(dir / "b.jph");
  ASSERT_TRUE(b.ok());
  auto jph = codec::parse_jp2(*b);
  ASSERT_TRUE(jph.ok()) << jph.status().to_string();
  EXPECT_EQ(jph->brand, codec::box::kBrandJph);

  ASSERT_EQ(testing::run_mallat("info " + at("b.jph"), &out, dir), 0) << out;
  EXPECT_NE(out.find("JPH, 640x480"), std::string::npos) << out;
  EXPECT_NE(out.find("coding: HT (HTJ2K, 15444-15)"), std::string::npos) << out;
  EXPECT_NE(out.find("Ccap15 0x0003: HT code-blocks only"), std::string::npos) << out;
  EXPECT_NE(out.find("(extended capabilities)"), std::string::npos) << out;

  ASSERT_EQ(testing::run_mallat("decode -i " + at("a.jhc") + " -o " + at("a.ppm"), &out, dir), 0) << out;
  auto original = io::read_image(image), decoded = io::read_image(dir / "a.ppm");
  ASSERT_TRUE(original.ok() && decoded.ok());
  for (int c = 0; c < 3; ++c) EXPECT_TRUE(original->components[c].samples == decoded->components[c].samples) << c;
  fs::remove_all(dir);
}

TEST(HtCli, RefusedModesAndLayers) {
  MALLAT_REQUIRE_TESTDATA("images/Cevennes2.ppm");
  const fs::path dir = testing::make_temp_dir("ht-cli-errors");
  const std::string image = (testing::testdata_dir() / "images/Cevennes2.ppm").string();
  const std::string target = (dir / "x.j2k").string();
  std::string out;
  EXPECT_EQ(testing::run_mallat("encode -i " + image + " -o " + target + " -M 65", &out, dir), 2);
  EXPECT_NE(out.find("-M must be 0..63 (Part 1 mode switches) or 64 (HT)"), std::string::npos) << out;
  EXPECT_EQ(testing::run_mallat("encode -i " + image + " -o " + target + " -M 64 -I -r 40,20", &out, dir), 1);
  EXPECT_NE(out.find("one quality layer"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(target));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mallat
