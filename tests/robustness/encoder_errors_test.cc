// The encoder on bad parameters and bad input. Each case
// gets a message that says what was wrong, a non-zero exit, and no output
// file, partial or whole.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/testdata.h"
#include "tests/tools/cli_run.h"

namespace mallat {
namespace {

namespace fs = std::filesystem;

struct Case {
  const char* what;
  std::string args;    // after "encode -i IN -o OUT"
  int status;          // 2: usage error, 1: the input or the job failed
  const char* says;    // part of the message
};

TEST(EncoderErrors, BadParametersAndInputs) {
  MALLAT_REQUIRE_TESTDATA("images/Cevennes2.ppm");
  const fs::path dir = testing::make_temp_dir("encoder-errors");
  const std::string photo = (testing::testdata_dir() / "images/Cevennes2.ppm").string();
  // Inputs made here: an image with no samples, and a file no reader knows.
  const fs::path empty = dir / "empty.pgm";
  std::ofstream(empty, std::ios::binary) << "P5\n0 0\n255\n";
  const fs::path text = dir / "notes.txt";
  std::ofstream(text) << "not an image\n";
  const fs::path small = dir / "small.pgm";
  {
    std::ofstream out(small, std::ios::binary);
    out << "P5\n3 2\n255\n";
    out.write("\x01\x02\x03\x04\x05\x06", 6);
  }

  const std::string out_file = (dir / "out.j2k").string();
  const Case cases[] = {
      {"code-block side below 4", "-i " + photo + " -o " + out_file + " -b 2,64", 2, "-b"},
      {"code-block side above 1024", "-i " + photo + " -o " + out_file + " -b 2048,2", 2, "-b"},
      {"code-block area above 4096", "-i " + photo + " -o " + out_file + " -b 128,64", 2, "-b"},
      {"resolutions above 33", "-i " + photo + " -o " + out_file + " -n 34", 2, "-n"},
      {"more levels than the image allows", "-i " + small.string() + " -o " + out_file + " -n 6", 1,
       "resolutions"},
      {"zero-size image", "-i " + empty.string() + " -o " + out_file, 1, "empty.pgm"},
      {"unsupported input", "-i " + text.string() + " -o " + out_file, 1, "notes.txt"},
      {"missing input", "-i " + (dir / "missing.ppm").string() + " -o " + out_file, 1, "missing.ppm"},
      {"unwritable output", "-i " + photo + " -o " + (dir / "no/such/folder/x.j2k").string(), 1,
       "x.j2k"},
      {"unknown output extension", "-i " + photo + " -o " + (dir / "out.xyz").string(), 2, "out.xyz"},
      {"negative ratio", "-i " + photo + " -o " + out_file + " -r -5", 2, "-r"},
  };
  for (const Case& c : cases) {
    std::string out;
    EXPECT_EQ(testing::run_mallat("encode " + c.args, &out, dir), c.status) << c.what << "\n" << out;
    EXPECT_NE(out.find(c.says), std::string::npos) << c.what << ": the message does not name '" << c.says
                                                    << "'\n" << out;
    // Nothing written: neither the output nor a temporary beside it.
    for (const auto& entry : fs::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      EXPECT_TRUE(name == "empty.pgm" || name == "notes.txt" || name == "small.pgm" || name == "out.txt")
          << c.what << ": left " << name;
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mallat
