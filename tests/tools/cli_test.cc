// The mallat command line as a user meets it: exit codes, messages, and no
// partial output file on failure.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "io/image_io.h"
#include "tests/testdata.h"
#include "tests/tools/cli_run.h"

namespace mallat {
namespace {

namespace fs = std::filesystem;

int run(const std::string& args, std::string* output, const fs::path& dir) {
  return testing::run_mallat(args, output, dir);
}

TEST(Cli, EncodeDecodeRoundTrip) {
  MALLAT_REQUIRE_TESTDATA("images/Cevennes2.ppm");
  const fs::path dir = testing::make_temp_dir("cli");
  const fs::path input = testing::testdata_dir() / "images/Cevennes2.ppm";
  std::string out;
  ASSERT_EQ(run("encode -i " + input.string() + " -o " + (dir / "a.jp2").string() + " -n 4 -b 32,32 -p RPCL -threads 2", &out, dir), 0) << out;
  // --threads: the two-dash spelling of -threads.
  ASSERT_EQ(run("decode -i " + (dir / "a.jp2").string() + " -o " + (dir / "a.ppm").string() + " --threads 1", &out, dir),
            0)
      << out;
  ASSERT_EQ(run("compare " + input.string() + " " + (dir / "a.ppm").string(), &out, dir), 0) << out;
  EXPECT_NE(out.find("peak error 0"), std::string::npos) << out;
  EXPECT_EQ(out.find("peak error 1"), std::string::npos) << out;
  fs::remove_all(dir);
}

TEST(Cli, BadOptionsAndInputs) {
  MALLAT_REQUIRE_TESTDATA("images/Cevennes2.ppm");
  const fs::path dir = testing::make_temp_dir("cli-bad");
  const std::string input = (testing::testdata_dir() / "images/Cevennes2.ppm").string();
  const std::string target = (dir / "x.j2k").string();
  std::string out;
  // Usage errors exit 2 and say what was wrong.
  EXPECT_EQ(run("encode -i " + input + " -o " + target + " -b 3,64", &out, dir), 2);
  EXPECT_NE(out.find("-b"), std::string::npos) << out;
  EXPECT_EQ(run("encode -i " + input + " -o " + target + " -p XYZW", &out, dir), 2);
  EXPECT_EQ(run("encode -i " + input + " -o " + (dir / "x.png").string(), &out, dir), 2);
  EXPECT_EQ(run("decode -i " + target + " -o " + (dir / "y.ppm").string() + " --dwt gpu", &out, dir), 2);
  EXPECT_EQ(run("frobnicate", &out, dir), 2);
  // Too many resolutions for the image, asked for explicitly: an error, no file.
  EXPECT_EQ(run("encode -i " + input + " -o " + target + " -n 12", &out, dir), 1);
  EXPECT_NE(out.find("resolutions"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(target));
  // A missing input and a corrupt codestream fail with the file's name.
  EXPECT_EQ(run("encode -i " + (dir / "missing.ppm").string() + " -o " + target, &out, dir), 1);
  EXPECT_NE(out.find("missing.ppm"), std::string::npos) << out;
  { std::ofstream junk(dir / "junk.j2k"); junk << "\xff\x4f\xff\x51 not a codestream"; }
  EXPECT_EQ(run("decode -i " + (dir / "junk.j2k").string() + " -o " + (dir / "y.ppm").string(), &out, dir), 1);
  EXPECT_NE(out.find("junk.j2k"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir / "y.ppm"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mallat
