// `mallat transcode`: the target coder is required, OUT's extension picks
// the container, bad input fails with a message and writes nothing, and a
// stream through --ht and --part1 decodes to the same image.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "codec/jp2/jp2_boxes.h"
#include "io/file.h"
#include "io/image_io.h"
#include "tests/testdata.h"
#include "tests/tools/cli_run.h"

namespace mallat {
namespace {

namespace fs = std::filesystem;

TEST(TranscodeCli, ThereAndBackDecodesTheSame) {
  MALLAT_REQUIRE_TESTDATA("images/Bretagne1.ppm");
  const fs::path dir = testing::make_temp_dir("transcode-cli");
  const std::string image = (testing::testdata_dir() / "images/Bretagne1.ppm").string();
  std::string out;
  auto at = [&](const char* name) { return (dir / name).string(); };
  ASSERT_EQ(testing::run_mallat("encode -i " + image + " -o " + at("a.jp2"), &out, dir), 0) << out;
  ASSERT_EQ(testing::run_mallat("transcode -i " + at("a.jp2") + " -o " + at("a.jph") + " --ht", &out, dir), 0) << out;
  ASSERT_EQ(testing::run_mallat("transcode -i " + at("a.jph") + " -o " + at("b.j2k") + " --part1 -threads 1", &out, dir),
            0)
      << out;
  auto jph = io::read_file(dir / "a.jph");
  ASSERT_TRUE(jph.ok());
  EXPECT_EQ(codec::detect_container(*jph), codec::Container::kJp2);
  auto b = io::read_file(dir / "b.j2k");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(codec::detect_container(*b), codec::Container::kCodestream);
  ASSERT_EQ(testing::run_mallat("decode -i " + at("a.jph") + " -o " + at("a.ppm"), &out, dir), 0) << out;
  ASSERT_EQ(testing::run_mallat("decode -i " + at("b.j2k") + " -o " + at("b.ppm"), &out, dir), 0) << out;
  auto x = io::read_image(dir / "a.ppm"), y = io::read_image(dir / "b.ppm"), z = io::read_image(image);
  ASSERT_TRUE(x.ok() && y.ok() && z.ok());
  for (int c = 0; c < 3; ++c) {
    EXPECT_TRUE(x->components[c].samples == z->components[c].samples) << c;
    EXPECT_TRUE(y->components[c].samples == z->components[c].samples) << c;
  }
  fs::remove_all(dir);
}

TEST(TranscodeCli, UsageAndInputErrors) {
  const fs::path dir = testing::make_temp_dir("transcode-cli-errors");
  std::string out;
  const std::string junk = (dir / "junk.j2k").string();
  ASSERT_TRUE(io::write_file_atomically(junk, std::vector<uint8_t>{1, 2, 3}).ok());
  const std::string target = (dir / "out.jhc").string();
  EXPECT_EQ(testing::run_mallat("transcode -i " + junk + " -o " + target, &out, dir), 2);
  EXPECT_NE(out.find("--ht or --part1 is required"), std::string::npos) << out;
  EXPECT_EQ(testing::run_mallat("transcode -i " + junk + " -o " + (dir / "x.png").string() + " --ht", &out, dir), 2);
  EXPECT_NE(out.find("must end in"), std::string::npos) << out;
  EXPECT_EQ(testing::run_mallat("transcode -i " + junk + " -o " + target + " --ht --part1", &out, dir), 2);
  EXPECT_EQ(testing::run_mallat("transcode -i " + junk + " -o " + target + " --ht", &out, dir), 1);
  EXPECT_NE(out.find("neither a JPEG 2000 codestream nor a JP2 file"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(target));
  EXPECT_EQ(testing::run_mallat("transcode --help", &out, dir), 0);
  EXPECT_NE(out.find("--part1"), std::string::npos) << out;
  EXPECT_EQ(testing::run_mallat("--help", &out, dir), 0);
  EXPECT_NE(out.find("transcode"), std::string::npos) << out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mallat
