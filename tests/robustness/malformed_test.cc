// Every file in ../shared/testdata/malformed (inputs that crashed
// other JPEG 2000 decoders) is decoded or rejected with a message, by the
// mallat command, within 5 s and 1 GiB of address space, and a rejected file
// leaves no output behind.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/testdata.h"

namespace mallat {
namespace {

namespace fs = std::filesystem;

const std::string kMallat = std::string(MALLAT_BINARY_DIR) + "/tools/mallat";

#if defined(__SANITIZE_ADDRESS__)
// ASan reserves terabytes of address space for its shadow memory, so the
// address-space limit cannot apply, and instrumented code is slower.
constexpr const char* kLimits = "";
constexpr int kSeconds = 60;
#else
constexpr const char* kLimits = "ulimit -v 1048576; ";
constexpr int kSeconds = 5;
#endif

TEST(Malformed, EveryFileDecodesOrFailsCleanly) {
  MALLAT_REQUIRE_TESTDATA("malformed");
  const fs::path dir = testing::make_temp_dir("malformed");
  int files = 0;
  for (const auto& entry : fs::directory_iterator(testing::testdata_dir() / "malformed")) {
    if (!entry.is_regular_file()) continue;
    ++files;
    const fs::path out = dir / "out.tif";
    const fs::path log = dir / "log.txt";
    fs::remove(out);
    // `timeout` sends SIGKILL at the limit: exit status 137, never 0 or 1.
    const std::string cmd = std::string("bash -c '") + kLimits + "exec timeout -s KILL " +
                            std::to_string(kSeconds) + " " + kMallat + " decode --dwt cpu -i \"" +
                            entry.path().string() + "\" -o \"" + out.string() + "\"' >" +
                            log.string() + " 2>&1";
    const auto start = std::chrono::steady_clock::now();
    const int rc = std::system(cmd.c_str());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::ifstream in(log);
    const std::string message((std::istreambuf_iterator<char>(in)), {});
    const std::string name = entry.path().filename().string();
    ASSERT_TRUE(WIFEXITED(rc)) << name << ": killed by a signal\n" << message;
    const int status = WEXITSTATUS(rc);
    EXPECT_TRUE(status == 0 || status == 1) << name << ": exit status " << status << " after "
                                            << seconds << " s\n" << message;
    EXPECT_LT(seconds, kSeconds) << name;
    if (status == 1) {
      EXPECT_FALSE(fs::exists(out)) << name << ": a rejected file left output behind";
      // The message names the input file.
      EXPECT_NE(message.find(name), std::string::npos) << message;
    } else if (status == 0) {
      EXPECT_TRUE(fs::exists(out)) << name;
    }
  }
  EXPECT_GT(files, 20);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mallat
