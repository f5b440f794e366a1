// Raw planes on the command line: encode -F with raw planes (.raw, .yuv,
// .rawl) and with a list of per-component files; decode to raw planes as
// coded, printing the -F text that reads them back; the errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "io/file.h"
#include "io/image_io.h"
#include "io/raw.h"
#include "tests/testdata.h"
#include "tests/tools/cli_run.h"

namespace mallat {
namespace {

namespace fs = std::filesystem;

// Planes of the -F geometry `text`: a ramp with noise, each component
// its own.
Image planes_of(const std::string& text, uint32_t seed) {
  auto g = io::parse_raw_geometry(text);
  EXPECT_TRUE(g.ok()) << text;
  if (!g.ok()) return {};
  Image image = io::raw_planes(*g);
  std::mt19937 rng(seed);
  for (size_t c = 0; c < image.components.size(); ++c) {
    Component& comp = image.components[c];
    const int64_t span = int64_t{comp.max_value()} - comp.min_value() + 1;
    for (size_t i = 0; i < comp.samples.size(); ++i)
      comp.samples[i] = static_cast<int32_t>(comp.min_value() + (static_cast<int64_t>(i * 131 + c * 17 + rng() % 5)) % span);
  }
  return image;
}

std::vector<uint8_t> bytes_of(const fs::path& p) {
  auto b = io::read_file(p);
  EXPECT_TRUE(b.ok()) << b.status().to_string();
  return b.ok() ? *b : std::vector<uint8_t>{};
}

TEST(RawCli, RoundTripsAndPrintsTheFormat) {
  const fs::path dir = testing::make_temp_dir("raw-cli");
  struct Case {
    const char* format;
    const char* ext;
    const char* extra;
  };
  for (const Case& c : {Case{"64,48,3,8,u@1x1:2x2:2x2", ".yuv", ""}, Case{"67,45,3,12,u@1x1:2x2:2x2", ".raw", ""},
                        Case{"67,45,3,12,s@1x1:2x1:2x1", ".rawl", " -p RPCL -t 32,32"},
                        Case{"50,30,4,16,u@1x1:2x1:2x1:1x1", ".raw", " -M 64"},
                        Case{"50,30,2,16,s@1x1:2x2", ".rawl", ""}, Case{"40,40,3,8,u", ".raw", ""}}) {
    SCOPED_TRACE(c.format);
    const fs::path in = dir / (std::string("in") + c.ext), out = dir / (std::string("out") + c.ext);
    ASSERT_TRUE(io::write_image(planes_of(c.format, 3), in).ok());
    std::string log;
    ASSERT_EQ(testing::run_mallat("encode -i " + in.string() + " -F " + c.format + c.extra + " -o " +
                                      (dir / "s.j2k").string(), &log, dir), 0) << log;
    ASSERT_EQ(testing::run_mallat("decode -i " + (dir / "s.j2k").string() + " -o " + out.string(), &log, dir), 0) << log;
    EXPECT_EQ(bytes_of(out), bytes_of(in));
    // The -F text that reads the planes back, with the factors written out.
    auto g = io::parse_raw_geometry(c.format);
    ASSERT_TRUE(g.ok());
    EXPECT_NE(log.find(out.string() + ": read it back with -F " + io::raw_geometry_text(*g)), std::string::npos) << log;
  }
  // With 1x1 components 0..2 the colour transform is coded silently; with
  // sub-sampled ones it is left off with a note.
  std::string log;
  ASSERT_TRUE(io::write_image(planes_of("40,40,3,8,u", 4), dir / "rgb.raw").ok());
  ASSERT_EQ(testing::run_mallat("encode -i " + (dir / "rgb.raw").string() + " -F 40,40,3,8,u -o " +
                                    (dir / "rgb.j2k").string(), &log, dir), 0) << log;
  EXPECT_EQ(log.find("colour transform"), std::string::npos) << log;
  ASSERT_TRUE(io::write_image(planes_of("40,40,3,8,u@1x1:2x2:2x2", 4), dir / "yuv.raw").ok());
  ASSERT_EQ(testing::run_mallat("encode -i " + (dir / "yuv.raw").string() + " -F 40,40,3,8,u@1x1:2x2 -o " +
                                    (dir / "yuv.j2k").string(), &log, dir), 0) << log;
  EXPECT_NE(log.find("note: " + (dir / "yuv.raw").string() + ": no colour transform"), std::string::npos) << log;
  fs::remove_all(dir);
}

TEST(RawCli, ErrorsSayWhatIsWrong) {
  const fs::path dir = testing::make_temp_dir("raw-cli-err");
  ASSERT_TRUE(io::write_image(planes_of("20,10,3,8,u@1x1:2x2:2x2", 5), dir / "p.raw").ok());  // 200 + 2 x 50 bytes
  const std::string in = (dir / "p.raw").string(), out = " -o " + (dir / "e.j2k").string();
  struct Case {
    std::string args;
    std::string says;
  };
  for (const Case& c : {Case{"-F 20,10,3,8,u", "needs a file of exactly 600 bytes, the file has 300"},
                        Case{"-F 22,10,3,8,u@1x1:2x2", "needs a file of exactly 330 bytes, the file has 300"},
                        Case{"-F 20,10,3,8,u@1x1:2x2:2x2 -mct 1", "-mct 1: the colour transform"},
                        Case{"-F 20,10,3,8", "-F needs W,H,N,BITS,s|u"},
                        Case{"-F 20,10,3,8,u@2", "sub-sampling factor '2'"},
                        Case{"", "a raw file holds no geometry; give -F"}}) {
    std::string log;
    EXPECT_NE(testing::run_mallat("encode -i " + in + " " + c.args + out, &log, dir), 0) << c.args;
    EXPECT_NE(log.find(c.says), std::string::npos) << c.args << ": " << log;
    EXPECT_FALSE(fs::exists(dir / "e.j2k")) << c.args;
  }
  // -F with an image file that holds its geometry.
  ASSERT_TRUE(io::write_image(planes_of("8,8,1,8,u", 1), dir / "g.pgm").ok());
  std::string log;
  EXPECT_NE(testing::run_mallat("encode -i " + (dir / "g.pgm").string() + " -F 8,8,1,8,u" + out, &log, dir), 0);
  EXPECT_NE(log.find("-F gives the geometry of raw input"), std::string::npos) << log;
  // Raw output holds one precision: a stream of two is refused, nothing written.
  const Image eight = planes_of("8,8,1,8,u", 2), twelve = planes_of("8,8,1,12,u", 3);
  ASSERT_TRUE(io::write_pgx_component(eight.components[0], dir / "m8.pgx").ok());
  ASSERT_TRUE(io::write_pgx_component(twelve.components[0], dir / "m12.pgx").ok());
  ASSERT_EQ(testing::run_mallat("encode -i " + (dir / "m8.pgx").string() + "," + (dir / "m12.pgx").string() + " -o " +
                                    (dir / "m.j2k").string(), &log, dir), 0) << log;
  EXPECT_NE(testing::run_mallat("decode -i " + (dir / "m.j2k").string() + " -o " + (dir / "m.raw").string(), &log, dir), 0);
  EXPECT_NE(log.find("a raw file holds one precision"), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(dir / "m.raw"));
  fs::remove_all(dir);
}

TEST(RawCli, PerComponentFilesDeriveOrTakeTheirFactors) {
  const fs::path dir = testing::make_temp_dir("raw-cli-pgx");
  const Image planes = planes_of("35,21,3,10,u@1x1:2x2:3x1", 6);
  std::string list;
  for (int c = 0; c < 3; ++c) {
    const fs::path p = dir / ("c" + std::to_string(c) + ".pgx");
    ASSERT_TRUE(io::write_pgx_component(planes.components[c], p).ok());
    list += (c ? "," : "") + p.string();
  }
  ASSERT_TRUE(io::write_image(planes, dir / "ref.raw").ok());
  std::string log;
  for (const std::string& f : {std::string(""), std::string(" -F @1x1:2x2:3x1"), std::string(" -F 35,21,3,10,u@1x1:2x2:3x1")}) {
    ASSERT_EQ(testing::run_mallat("encode -i " + list + f + " -o " + (dir / "s.j2k").string(), &log, dir), 0) << f << log;
    ASSERT_EQ(testing::run_mallat("decode -i " + (dir / "s.j2k").string() + " -o " + (dir / "back.raw").string(), &log,
                                  dir), 0) << log;
    EXPECT_EQ(bytes_of(dir / "back.raw"), bytes_of(dir / "ref.raw")) << f;
    EXPECT_NE(log.find("-F 35,21,3,10,u@1x1:2x2:3x1"), std::string::npos) << log;
  }
  // Factors that do not fit the files, and sizes no factor gives.
  EXPECT_NE(testing::run_mallat("encode -i " + list + " -F @1x1:3x3:3x1 -o " + (dir / "x.j2k").string(), &log, dir), 0);
  EXPECT_NE(log.find("component 1's width fits no image width"), std::string::npos) << log;
  EXPECT_NE(testing::run_mallat("encode -i " + list + " -F 36,21,3,10,u@1x1:2x2:3x1 -o " + (dir / "x.j2k").string(),
                                &log, dir), 0);
  EXPECT_NE(log.find("gives component 0 36x21"), std::string::npos) << log;
  Component odd = planes.components[1];
  odd.width = 13;  // ceil(35 / d) is 18, 12, 9, ...: never 13
  odd.samples.resize(13 * odd.height);
  ASSERT_TRUE(io::write_pgx_component(odd, dir / "odd.pgx").ok());
  EXPECT_NE(testing::run_mallat("encode -i " + (dir / "c0.pgx").string() + "," + (dir / "odd.pgx").string() + " -o " +
                                    (dir / "x.j2k").string(), &log, dir), 0);
  EXPECT_NE(log.find("odd.pgx: its size 13x11 is not ceil(35 / dx) x ceil(21 / dy)"), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(dir / "x.j2k"));
  fs::remove_all(dir);
}

TEST(RawCli, Jp2ToRawKeepsThePlanesAsCoded) {
  // A YCbCr 4:2:0 JP2 file (colr sYCC): PNG output is RGB on the image grid,
  // raw output the three planes as they were given.
  const fs::path dir = testing::make_temp_dir("raw-cli-jp2");
  const std::string format = "32,24,3,8,u@1x1:2x2:2x2";
  Image yuv = planes_of(format, 7);
  for (int c = 1; c < 3; ++c)
    for (int32_t& v : yuv.components[c].samples) v = 96 + v % 64;  // chroma near neutral
  ASSERT_TRUE(io::write_image(yuv, dir / "in.yuv").ok());
  std::string log;
  ASSERT_EQ(testing::run_mallat("encode -i " + (dir / "in.yuv").string() + " -F " + format + " -o " +
                                    (dir / "y.jp2").string(), &log, dir), 0) << log;
  ASSERT_EQ(testing::run_mallat("decode -i " + (dir / "y.jp2").string() + " -o " + (dir / "y.png").string(), &log, dir), 0)
      << log;
  ASSERT_EQ(testing::run_mallat("decode -i " + (dir / "y.jp2").string() + " -o " + (dir / "y.yuv").string(), &log, dir), 0)
      << log;
  EXPECT_EQ(bytes_of(dir / "y.yuv"), bytes_of(dir / "in.yuv"));
  auto png = io::read_image(dir / "y.png");
  ASSERT_TRUE(png.ok());
  EXPECT_EQ(png->width(), 32);
  EXPECT_EQ(png->num_components(), 3);
  EXPECT_NE(png->components[0].samples, yuv.components[0].samples) << "the PNG is RGB, not Y";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mallat
