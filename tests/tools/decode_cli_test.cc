// `mallat decode` output options on the JP2 conformance files: one PGX per
// component, -c, -split-pnm, -p, -force-rgb, -upsample, ICC profiles, PNG
// compression, and all-or-none writing of several files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "codec/jp2/jp2_boxes.h"
#include "io/file.h"
#include "io/image_io.h"
#include "tests/testdata.h"
#include "tests/tools/cli_run.h"

namespace mallat {
namespace {

namespace fs = std::filesystem;

std::string conformance(const std::string& file) {
  return (testing::testdata_dir() / "conformance" / file).string();
}

Image read(const fs::path& path) {
  auto image = io::read_image(path);
  EXPECT_TRUE(image.ok()) << image.status().to_string();
  return image.ok() ? std::move(*image) : Image{};
}

TEST(DecodeCli, PgxOneFilePerComponentMatchesTheRgbDecode) {
  MALLAT_REQUIRE_TESTDATA("conformance/file1.jp2");
  const fs::path dir = testing::make_temp_dir("decode-pgx");
  std::string out;
  ASSERT_EQ(testing::run_mallat("decode -i " + conformance("file1.jp2") + " -o " + (dir / "f.pgx").string(), &out, dir), 0) << out;
  ASSERT_EQ(testing::run_mallat("decode -i " + conformance("file1.jp2") + " -o " + (dir / "f.ppm").string(), &out, dir), 0) << out;
  EXPECT_FALSE(fs::exists(dir / "f.pgx"));
  const Image rgb = read(dir / "f.ppm");
  ASSERT_EQ(rgb.num_components(), 3);
  for (int c = 0; c < 3; ++c) {
    const Image one = read(dir / ("f_" + std::to_string(c) + ".pgx"));
    ASSERT_EQ(one.num_components(), 1);
    EXPECT_EQ(one.components[0].samples, rgb.components[c].samples) << c;
  }
  fs::remove_all(dir);
}

TEST(DecodeCli, ComponentsAsListed) {
  // -c 2,0: component 2 then component 0, each as in the whole decode;
  // a bad index is an error that names it, a bad list a usage error.
  MALLAT_REQUIRE_TESTDATA("conformance/file1.jp2");
  const fs::path dir = testing::make_temp_dir("decode-c");
  const std::string in = conformance("file1.jp2");
  std::string out;
  ASSERT_EQ(testing::run_mallat("decode -i " + in + " -o " + (dir / "f.ppm").string(), &out, dir), 0) << out;
  ASSERT_EQ(testing::run_mallat("decode -i " + in + " -o " + (dir / "c.pgx").string() + " -c 2,0", &out, dir), 0) << out;
  const Image rgb = read(dir / "f.ppm");
  ASSERT_EQ(rgb.num_components(), 3);
  EXPECT_EQ(read(dir / "c_0.pgx").components.at(0).samples, rgb.components[2].samples);
  EXPECT_EQ(read(dir / "c_1.pgx").components.at(0).samples, rgb.components[0].samples);
  EXPECT_FALSE(fs::exists(dir / "c_2.pgx"));
  EXPECT_EQ(testing::run_mallat("decode -i " + in + " -o " + (dir / "x.pgm").string() + " -c 3", &out, dir), 1);
  EXPECT_NE(out.find("component 3 does not exist (the image has 3 components"), std::string::npos) << out;
  EXPECT_EQ(testing::run_mallat("decode -i " + in + " -o " + (dir / "x.pgm").string() + " -c 1,", &out, dir), 2);
  EXPECT_NE(out.find("-c must be"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir / "x.pgm"));
  fs::remove_all(dir);
}

TEST(DecodeCli, Region) {
  // -d x0,y0,x1,y1 with -r: the crop of the whole decode at that reduction;
  // a malformed or empty region is a usage error, one outside the image an
  // error that says so; --help names the option.
  MALLAT_REQUIRE_TESTDATA("conformance/file1.jp2");
  const fs::path dir = testing::make_temp_dir("decode-d");
  const std::string in = conformance("file1.jp2");
  std::string out;
  ASSERT_EQ(testing::run_mallat("decode -i " + in + " -o " + (dir / "f.ppm").string() + " -r 1", &out, dir), 0) << out;
  ASSERT_EQ(testing::run_mallat("decode -i " + in + " -o " + (dir / "d.ppm").string() + " -r 1 -d 100,51,301,250",
                                &out, dir),
            0)
      << out;
  const Image whole = read(dir / "f.ppm"), part = read(dir / "d.ppm");
  ASSERT_EQ(part.num_components(), 3);
  // ceil(100 / 2) .. ceil(301 / 2), ceil(51 / 2) .. ceil(250 / 2)
  EXPECT_EQ(part.components[0].width, 101);
  EXPECT_EQ(part.components[0].height, 99);
  for (int c = 0; c < 3; ++c)
    for (int64_t y = 0; y < part.components[c].height; ++y)
      for (int64_t x = 0; x < part.components[c].width; ++x)
        ASSERT_EQ(part.components[c].samples[y * part.components[c].width + x],
                  whole.components[c].samples[(y + 26) * whole.components[c].width + x + 50])
            << c << " " << x << " " << y;
  EXPECT_EQ(testing::run_mallat("decode -i " + in + " -o " + (dir / "x.ppm").string() + " -d 1,2,3", &out, dir), 2);
  EXPECT_NE(out.find("-d must be x0,y0,x1,y1"), std::string::npos) << out;
  EXPECT_EQ(testing::run_mallat("decode -i " + in + " -o " + (dir / "x.ppm").string() + " -d 5,5,5,9", &out, dir), 2);
  EXPECT_NE(out.find("is empty"), std::string::npos) << out;
  EXPECT_EQ(testing::run_mallat("decode -i " + in + " -o " + (dir / "x.ppm").string() + " -d 9000,0,9010,10", &out,
                                dir),
            1);
  EXPECT_NE(out.find("lies outside the image area"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir / "x.ppm"));
  ASSERT_EQ(testing::run_mallat("decode --help", &out, dir), 0);
  EXPECT_NE(out.find("-d x0,y0,x1,y1"), std::string::npos) << out;
  fs::remove_all(dir);
}

TEST(DecodeCli, SeveralFilesAreAllWrittenOrNone) {
  MALLAT_REQUIRE_TESTDATA("conformance/file1.jp2");
  const fs::path dir = testing::make_temp_dir("decode-none");
  fs::create_directory(dir / "f_1.pgx");  // the second file cannot be put in place
  std::string out;
  EXPECT_EQ(testing::run_mallat("decode -i " + conformance("file1.jp2") + " -o " + (dir / "f.pgx").string(), &out, dir), 1) << out;
  EXPECT_NE(out.find("f_1.pgx"), std::string::npos) << out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    EXPECT_TRUE(name == "f_1.pgx" || name == "out.txt") << "left behind: " << name;
  }
  fs::remove_all(dir);
}

TEST(DecodeCli, SplitPnm) {
  MALLAT_REQUIRE_TESTDATA("conformance/file1.jp2");
  const fs::path dir = testing::make_temp_dir("decode-split");
  std::string out;
  ASSERT_EQ(testing::run_mallat("decode -i " + conformance("file1.jp2") + " -o " + (dir / "s.ppm").string() + " -split-pnm", &out, dir), 0) << out;
  EXPECT_FALSE(fs::exists(dir / "s.ppm"));
  for (int c = 0; c < 3; ++c) EXPECT_EQ(read(dir / ("s_" + std::to_string(c) + ".pgm")).num_components(), 1);
  fs::remove_all(dir);
}

TEST(DecodeCli, PngLevelAndFilterGiveTheSameSamples) {
  MALLAT_REQUIRE_TESTDATA("conformance/file1.jp2");
  const fs::path dir = testing::make_temp_dir("decode-png-level");
  const std::string in = conformance("file1.jp2");
  std::string out;
  ASSERT_EQ(testing::run_mallat("decode -i " + in + " -o " + (dir / "ref.ppm").string(), &out, dir), 0) << out;
  const Image ref = read(dir / "ref.ppm");
  // Streamed (the default for one PNG) and whole-image writers, the default and other settings.
  for (const std::string options : {"", "--png-level 0 --png-filter paeth --whole-image"}) {
    const fs::path png = dir / "x.png";
    ASSERT_EQ(testing::run_mallat("decode -i " + in + " -o " + png.string() + " " + options, &out, dir), 0) << out;
    const Image back = read(png);
    ASSERT_EQ(back.num_components(), ref.num_components()) << options;
    for (int c = 0; c < ref.num_components(); ++c) EXPECT_EQ(back.components[c].samples, ref.components[c].samples) << options;
  }
  for (const char* bad : {"--png-level 10", "--png-level x", "--png-filter fast"}) {
    EXPECT_EQ(testing::run_mallat("decode -i " + in + " -o " + (dir / "y.png").string() + " " + bad, &out, dir), 2)
        << bad;
    EXPECT_NE(out.find(std::string(bad).substr(0, 12)), std::string::npos) << out;
  }
  EXPECT_FALSE(fs::exists(dir / "y.png"));
  fs::remove_all(dir);
}

TEST(DecodeCli, PrecisionAndForceRgb) {
  MALLAT_REQUIRE_TESTDATA("conformance/file6.jp2");  // 12-bit greyscale
  const fs::path dir = testing::make_temp_dir("decode-prec");
  std::string out;
  const std::string in = conformance("file6.jp2");
  ASSERT_EQ(testing::run_mallat("decode -i " + in + " -o " + (dir / "g.pgm").string(), &out, dir), 0) << out;
  ASSERT_EQ(testing::run_mallat("decode -i " + in + " -o " + (dir / "s.ppm").string() + " -p 8S -force-rgb", &out, dir), 0) << out;
  ASSERT_EQ(testing::run_mallat("decode -i " + in + " -o " + (dir / "c.pgm").string() + " -p 8", &out, dir), 0) << out;
  const Image grey = read(dir / "g.pgm"), scaled = read(dir / "s.ppm"), clipped = read(dir / "c.pgm");
  ASSERT_EQ(grey.components[0].precision, 12);
  ASSERT_EQ(scaled.num_components(), 3);
  EXPECT_EQ(scaled.components[0].precision, 8);
  for (size_t i = 0; i < grey.components[0].samples.size(); i += 101) {
    const int32_t v = grey.components[0].samples[i];
    for (int c = 0; c < 3; ++c) EXPECT_EQ(scaled.components[c].samples[i], v >> 4);
    EXPECT_EQ(clipped.components[0].samples[i], std::min(v, 255));
  }
  fs::remove_all(dir);
}

TEST(DecodeCli, SubsampledComponentsAreUpsampledForInterleavedFormats) {
  MALLAT_REQUIRE_TESTDATA("conformance/file3.jp2");  // 4:2:0 chroma
  const fs::path dir = testing::make_temp_dir("decode-up");
  // The raw codestream: no sYCC conversion, so the chroma stays sub-sampled.
  auto file = io::read_file(conformance("file3.jp2"));
  ASSERT_TRUE(file.ok());
  auto stream = codec::find_codestream(*file);
  ASSERT_TRUE(stream.ok());
  ASSERT_TRUE(io::write_file_atomically(dir / "f3.j2k", *stream).ok());
  const std::string in = (dir / "f3.j2k").string();
  std::string out;
  ASSERT_EQ(testing::run_mallat("decode -i " + in + " -o " + (dir / "p.pgx").string(), &out, dir), 0) << out;
  ASSERT_EQ(testing::run_mallat("decode -i " + in + " -o " + (dir / "u.pgx").string() + " -upsample", &out, dir), 0) << out;
  ASSERT_EQ(testing::run_mallat("decode -i " + in + " -o " + (dir / "t.tif").string(), &out, dir), 0) << out;
  const Image chroma = read(dir / "p_1.pgx"), up = read(dir / "u_1.pgx"), tiff = read(dir / "t.tif");
  EXPECT_EQ(chroma.width(), 240);
  EXPECT_EQ(chroma.height(), 320);
  ASSERT_EQ(up.width(), 480);
  ASSERT_EQ(up.height(), 640);
  ASSERT_EQ(tiff.num_components(), 3);
  for (int64_t y = 0; y < 640; y += 7)
    for (int64_t x = 0; x < 480; x += 5) {
      const int32_t v = chroma.components[0].samples[(y / 2) * 240 + x / 2];
      ASSERT_EQ(up.components[0].samples[y * 480 + x], v) << x << "," << y;
      ASSERT_EQ(tiff.components[1].samples[y * 480 + x], v) << x << "," << y;
    }
  fs::remove_all(dir);
}

TEST(DecodeCli, IccProfileKeptOrApplied) {
  MALLAT_REQUIRE_TESTDATA("conformance/file5.jp2");  // RGB with a 546-byte restricted ICC profile
  const fs::path dir = testing::make_temp_dir("decode-icc");
  const std::string in = conformance("file5.jp2");
  std::string out;
  ASSERT_EQ(testing::run_mallat("decode -i " + in + " -o " + (dir / "k.png").string(), &out, dir), 0) << out;
  EXPECT_EQ(read(dir / "k.png").icc_profile.size(), 546u);
  ASSERT_EQ(testing::run_mallat("decode -i " + in + " -o " + (dir / "k.tif").string(), &out, dir), 0) << out;
  EXPECT_EQ(read(dir / "k.tif").icc_profile.size(), 546u);
  ASSERT_EQ(testing::run_mallat("decode -i " + in + " -o " + (dir / "s.png").string() + " --icc-to-srgb", &out, dir), 0) << out;
  EXPECT_TRUE(read(dir / "s.png").icc_profile.empty());
  // PPM cannot hold the profile, so it is applied by default (the
  // user is told), and --keep-samples writes the samples untouched.
  ASSERT_EQ(testing::run_mallat("decode -i " + in + " -o " + (dir / "k.ppm").string(), &out, dir), 0) << out;
  EXPECT_NE(out.find("holds no ICC profile: the file's restricted profile was applied"), std::string::npos) << out;
  EXPECT_TRUE(read(dir / "k.ppm").components[1].samples == read(dir / "s.png").components[1].samples);
  ASSERT_EQ(testing::run_mallat("decode -i " + in + " -o " + (dir / "r.ppm").string() + " --keep-samples", &out, dir),
            0) << out;
  EXPECT_NE(out.find("is not written"), std::string::npos) << out;
  EXPECT_TRUE(read(dir / "r.ppm").components[1].samples == read(dir / "k.png").components[1].samples);
  EXPECT_FALSE(read(dir / "r.ppm").components[1].samples == read(dir / "k.ppm").components[1].samples);
  // file7's profile has a PCS illuminant one unit off D50, which libpng only warns about.
  ASSERT_EQ(testing::run_mallat("decode -i " + conformance("file7.jp2") + " -o " + (dir / "7.png").string(), &out, dir), 0) << out;
  EXPECT_EQ(read(dir / "7.png").icc_profile.size(), 13332u);
  ASSERT_EQ(testing::run_mallat("info " + in, &out, dir), 0) << out;
  EXPECT_NE(out.find("restricted ICC profile, 546 bytes"), std::string::npos) << out;
  fs::remove_all(dir);
}

TEST(DecodeCli, InfoReportsJp2Boxes) {
  MALLAT_REQUIRE_TESTDATA("conformance/file9.jp2");
  const fs::path dir = testing::make_temp_dir("decode-info");
  std::string out;
  ASSERT_EQ(testing::run_mallat("info " + conformance("file9.jp2") + " " + conformance("file2.jp2"), &out, dir), 0) << out;
  for (const char* line : {"JP2, 768x512, 1 component", "pclr: 256 entries, 3 columns",
                           "cmap: channel 2 = palette column 2 indexed by component 0", "enumerated 18 (sYCC)",
                           "cdef: channel 0 is colour, of colour 3"})
    EXPECT_NE(out.find(line), std::string::npos) << line << "\n" << out;
  fs::remove_all(dir);
}

TEST(DecodeCli, UsageErrorsAndHelp) {
  MALLAT_REQUIRE_TESTDATA("conformance/file1.jp2");
  const fs::path dir = testing::make_temp_dir("decode-usage");
  const std::string in = conformance("file1.jp2");
  std::string out;
  EXPECT_EQ(testing::run_mallat("decode -i " + in + " -o " + (dir / "x.ppm").string() + " -p 40", &out, dir), 2);
  EXPECT_NE(out.find("-p"), std::string::npos) << out;
  EXPECT_EQ(testing::run_mallat("decode -i " + in + " -o " + (dir / "x.ppm").string() + " -p 8Q", &out, dir), 2);
  EXPECT_EQ(testing::run_mallat("decode -i " + in + " -o " + (dir / "x.xyz").string(), &out, dir), 2);
  EXPECT_FALSE(fs::exists(dir / "x.ppm"));
  ASSERT_EQ(testing::run_mallat("decode --help", &out, dir), 0);
  for (const char* option : {"-p B", "-c C,...", "-upsample", "-force-rgb", "-split-pnm", "--icc-to-srgb", "_0.pgx"})
    EXPECT_NE(out.find(option), std::string::npos) << option;
  fs::remove_all(dir);
}

TEST(DecodeCli, MaxMemory) {
  MALLAT_REQUIRE_TESTDATA("conformance/file1.jp2");
  const fs::path dir = testing::make_temp_dir("decode-max-memory");
  const std::string in = conformance("file1.jp2");
  const std::string target = (dir / "x.ppm").string();
  std::string out;
  // Too little for the image: refused with a message that names the option,
  // and no output.
  EXPECT_EQ(testing::run_mallat("decode -i " + in + " -o " + target + " --max-memory 64K", &out, dir), 1);
  EXPECT_NE(out.find("--max-memory"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(target));
  EXPECT_EQ(testing::run_mallat("decode -i " + in + " -o " + target + " --max-memory 512M", &out, dir), 0) << out;
  EXPECT_TRUE(fs::exists(target));
  for (const char* bad : {"0", "12X", "-5M", "M"})
    EXPECT_EQ(testing::run_mallat("decode -i " + in + " -o " + target + " --max-memory " + bad, &out, dir), 2) << bad;
  fs::remove_all(dir);
}

// encode --max-memory bounds the input image's samples (io/image_io.h).
TEST(EncodeCli, MaxMemory) {
  MALLAT_REQUIRE_TESTDATA("images/Bretagne1.ppm");
  const fs::path dir = testing::make_temp_dir("encode-max-memory");
  const std::string in = (testing::testdata_dir() / "images/Bretagne1.ppm").string();
  const std::string target = (dir / "x.j2k").string();
  std::string out;
  EXPECT_EQ(testing::run_mallat("encode --whole-image -i " + in + " -o " + target + " --max-memory 1M", &out, dir), 1);
  EXPECT_NE(out.find("memory limit"), std::string::npos) << out;
  EXPECT_NE(out.find("--max-memory"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(target));
  // A streamed encode holds a few rows: the limit on the whole image's samples does not bind it.
  EXPECT_EQ(testing::run_mallat("encode -i " + in + " -o " + target + " --max-memory 1M", &out, dir), 0) << out;
  EXPECT_TRUE(fs::exists(target));
  fs::remove(target);
  EXPECT_EQ(testing::run_mallat("encode -i " + in + " -o " + target + " --max-memory 4M", &out, dir), 0) << out;
  EXPECT_TRUE(fs::exists(target));
  for (const char* bad : {"0", "12X", "-5M"})
    EXPECT_EQ(testing::run_mallat("encode -i " + in + " -o " + target + " --max-memory " + bad, &out, dir), 2) << bad;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mallat
