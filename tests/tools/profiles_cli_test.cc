// `mallat encode -cinema2K / -cinema4K / -IMF`: the flags reach
// the codestream whatever their place among the other options, an option
// that contradicts the profile is an error naming both, a bad profile value
// is a usage error, and `mallat info` names the profile from Rsiz.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "io/image_io.h"
#include "tests/interop/generated.h"
#include "tests/testdata.h"
#include "tests/tools/cli_run.h"

namespace mallat {
namespace {

namespace fs = std::filesystem;

// A small 12-bit RGB frame (the profiles take any size up to their largest).
fs::path write_frame(const fs::path& dir) {
  const fs::path in = dir / "frame.ppm";
  EXPECT_TRUE(io::write_image(testing::generated_image(96, 64, 3, 12, false), in).ok());
  return in;
}

TEST(ProfilesCli, ProfilesReachTheStreamAndInfoNamesThem) {
  const fs::path dir = testing::make_temp_dir("profiles-cli-ok");
  const std::string head = "encode -i " + write_frame(dir).string() + " -o " + (dir / "x.j2c").string() + " ";
  const std::string info = "info " + (dir / "x.j2c").string();
  std::string out;
  ASSERT_EQ(testing::run_mallat(head + "-cinema2K 48 -threads 2", &out, dir), 0) << out;
  ASSERT_EQ(testing::run_mallat(info, &out, dir), 0) << out;
  EXPECT_NE(out.find("profile: 2K digital cinema (Rsiz 0x0003)"), std::string::npos) << out;
  EXPECT_NE(out.find("CPRL, code-blocks 32x32"), std::string::npos) << out;
  ASSERT_EQ(testing::run_mallat(head + "-cinema4K", &out, dir), 0) << out;
  // "-cinema4K 24", written as the 2K flag is, is the same profile; another rate is not a value it takes.
  ASSERT_EQ(testing::run_mallat(head + "-cinema4K 24", &out, dir), 0) << out;
  EXPECT_NE(testing::run_mallat(head + "-cinema4K 48", &out, dir), 0) << out;
  ASSERT_EQ(testing::run_mallat(info, &out, dir), 0) << out;
  EXPECT_NE(out.find("profile: 4K digital cinema (Rsiz 0x0004)"), std::string::npos) << out;
  // opj_compress's lower-case keys; -n before the flag is kept (3 <= 5).
  ASSERT_EQ(testing::run_mallat(head + "-n 3 -IMF 4K_R,mainlevel=5,sublevel=2", &out, dir), 0) << out;
  ASSERT_EQ(testing::run_mallat(info, &out, dir), 0) << out;
  EXPECT_NE(out.find("profile: IMF 4K_R, main level 5, sub-level 2 (Rsiz 0x0825)"), std::string::npos) << out;
  EXPECT_NE(out.find("2 levels, reversible 5/3"), std::string::npos) << out;
  fs::remove_all(dir);
}

TEST(ProfilesCli, ContradictionsAndBadValues) {
  const fs::path dir = testing::make_temp_dir("profiles-cli-bad");
  const std::string head = "encode -i " + write_frame(dir).string() + " -o " + (dir / "x.j2c").string() + " ";
  struct Case {
    const char* args;
    int status;
    const char* said;
  };
  const Case cases[] = {
      {"-b 64,64 -cinema2K 24", 1, "-cinema2K 24 (Rsiz 0x0003, 15444-1 Amd 1) requires 32x32 code-blocks; -b gives 64x64"},
      {"-cinema2K 24 -p LRCP", 1, "requires the CPRL progression; -p gives LRCP"},
      {"-cinema4K -n 8", 1, "requires 1..6 decomposition levels; -n 8"},
      {"-cinema2K 24 -r 20,10", 1, "one quality layer"},
      {"-IMF 2K_R -I", 1, "requires the reversible 5/3 wavelet; -I"},
      {"-cinema2K 30", 2, "-cinema2K needs 24 or 48"},
      {"-cinema2K 24 -cinema4K", 2, "profiles exclude each other"},
      {"-IMF 4K,MAINLEVEL=12", 2, "-IMF needs PROFILE"},
      {"-IMF 5K", 2, "-IMF needs PROFILE"},
  };
  for (const Case& c : cases) {
    std::string out;
    EXPECT_EQ(testing::run_mallat(head + c.args, &out, dir), c.status) << c.args << "\n" << out;
    EXPECT_NE(out.find(c.said), std::string::npos) << c.args << "\n" << out;
    EXPECT_FALSE(fs::exists(dir / "x.j2c")) << c.args;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mallat
