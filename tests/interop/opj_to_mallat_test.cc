// opj_compress -> mallat decode -> bit-exact: OpenJPEG's lossless files
// decode with mallat to the original samples.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "codec/codec.h"
#include "io/file.h"
#include "io/image_io.h"
#include "tests/interop/opj.h"
#include "tests/testdata.h"

namespace mallat {
namespace {

namespace fs = std::filesystem;

void expect_mallat_decodes_opj_exactly(const fs::path& input, const std::string& options) {
  ASSERT_TRUE(testing::have_program("opj_compress")) << "opj_compress is not installed";
  auto original = io::read_image(input);
  ASSERT_TRUE(original.ok()) << original.status().to_string();
  const fs::path dir = testing::make_temp_dir("o2m");
  for (const char* ext : {".j2k", ".jp2"}) {
    const fs::path stream = dir / (std::string("x") + ext);
    const fs::path log = dir / "log.txt";
    ASSERT_EQ(testing::run_command("opj_compress -i " + input.string() + " -o " +
                                       stream.string() + " " + options, log), 0)
        << "opj_compress " << options << " failed on " << input;
    auto data = io::read_file(stream);
    ASSERT_TRUE(data.ok());
    codec::DecodeOptions decode_options;
    auto decoded = codec::decode(*data, decode_options);
    ASSERT_TRUE(decoded.ok()) << input.filename() << " " << options << " " << ext << ": "
                              << decoded.status().to_string();
    ASSERT_EQ(decoded->num_components(), original->num_components());
    for (int c = 0; c < original->num_components(); ++c) {
      const Component& a = original->components[c];
      const Component& b = decoded->components[c];
      ASSERT_EQ(a.width, b.width);
      ASSERT_EQ(a.height, b.height);
      ASSERT_EQ(a.precision, b.precision);
      ASSERT_TRUE(a.samples == b.samples)
          << input.filename() << " " << options << " " << ext << ": component " << c << " differs";
    }
  }
  fs::remove_all(dir);
}

TEST(OpjToMallat, DefaultsOnSharedImages) {
  MALLAT_REQUIRE_TESTDATA("images");
  const auto images = testing::testdata_dir() / "images";
  for (const char* name : {"Bretagne1.ppm", "Cevennes2.ppm", "Rome.bmp", "flower-minisblack-08.tif",
                           "flower-rgb-contig-16.tif", "flower-minisblack-12.tif"}) {
    expect_mallat_decodes_opj_exactly(images / name, "");
  }
  // Single components from the conformance references.
  MALLAT_REQUIRE_TESTDATA("conformance/reference");
  const auto refs = testing::testdata_dir() / "conformance/reference";
  for (const char* name : {"c1p0_01_0.pgx", "c1p0_05_0.pgx"}) {
    expect_mallat_decodes_opj_exactly(refs / name, "");
  }
}

TEST(OpjToMallat, SignedComponent) {
  // OpenJPEG 2.5's PGX reader misreads "PG ML -12" (the sign written against
  // the depth, as the ISO references do) as unsigned 13-bit, and codes the
  // form with a space as signed 11-bit, so its codestream no longer matches
  // the file. Compare mallat's decode with opj_decompress's of the same
  // stream instead: both must give the same samples.
  const fs::path dir = testing::make_temp_dir("o2m-signed");
  const fs::path pgx = dir / "signed.pgx";
  {
    std::FILE* f = std::fopen(pgx.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fprintf(f, "PG ML - 12 67 45\n");
    for (int i = 0; i < 67 * 45; ++i) {
      const int v = ((i * 37) % 4096) - 2048;  // every 12-bit value class, signed
      std::fputc((v >> 8) & 0xFF, f);
      std::fputc(v & 0xFF, f);
    }
    std::fclose(f);
  }
  for (const char* options : {"", "-n 3 -b 16,16"}) {
    const fs::path stream = dir / "s.j2k";
    ASSERT_EQ(testing::run_command("opj_compress -i " + pgx.string() + " -o " + stream.string() + " " +
                                       options, dir / "log.txt"), 0);
    ASSERT_EQ(testing::run_command("opj_decompress -i " + stream.string() + " -o " +
                                       (dir / "o.pgx").string(), dir / "log.txt"), 0);
    auto theirs = io::read_image(dir / "o_0.pgx");
    ASSERT_TRUE(theirs.ok()) << theirs.status().to_string();
    ASSERT_TRUE(theirs->components[0].is_signed);
    auto data = io::read_file(stream);
    ASSERT_TRUE(data.ok());
    auto ours = codec::decode(*data, codec::DecodeOptions{});
    ASSERT_TRUE(ours.ok()) << ours.status().to_string();
    EXPECT_EQ(ours->components[0].precision, theirs->components[0].precision);
    EXPECT_TRUE(ours->components[0].samples == theirs->components[0].samples) << options;
  }
  fs::remove_all(dir);
}

TEST(OpjToMallat, CodingVariants) {
  MALLAT_REQUIRE_TESTDATA("images");
  const auto image = testing::testdata_dir() / "images" / "Bretagne1.ppm";
  for (const char* options : {"-t 128,96", "-t 200,200 -p RPCL", "-c [128,128],[64,64]",
                              "-p RLCP", "-p RPCL -c [64,64]", "-p PCRL -c [64,64],[32,32]",
                              "-p CPRL -t 256,256 -c [32,32]", "-b 32,32", "-b 16,64",
                              "-n 1", "-n 8", "-SOP -EPH", "-d 13,7 -t 100,100 -T 5,3"}) {
    expect_mallat_decodes_opj_exactly(image, options);
  }
}

}  // namespace
}  // namespace mallat

namespace mallat {
namespace {

// Resolution reduction (-r) and tile selection (-t) must give what
// opj_decompress gives for the same stream.
TEST(OpjToMallat, ReduceAndTileMatchOpjDecompress) {
  MALLAT_REQUIRE_TESTDATA("images");
  ASSERT_TRUE(testing::have_program("opj_compress")) << "opj_compress is not installed";
  const fs::path dir = testing::make_temp_dir("o2m-reduce");
  const auto image = testing::testdata_dir() / "images" / "Cevennes2.ppm";
  const fs::path stream = dir / "x.j2k";
  ASSERT_EQ(testing::run_command("opj_compress -i " + image.string() + " -o " + stream.string() +
                                     " -t 200,150 -d 3,5 -T 1,2 -p RPCL", dir / "log.txt"), 0);
  auto data = io::read_file(stream);
  ASSERT_TRUE(data.ok());
  struct Case { int reduce, tile; };
  for (const Case& c : {Case{1, -1}, Case{2, -1}, Case{5, -1}, Case{0, 4}, Case{1, 7}}) {
    std::string args = " -r " + std::to_string(c.reduce);
    if (c.tile >= 0) args += " -t " + std::to_string(c.tile);
    ASSERT_EQ(testing::run_command("opj_decompress -i " + stream.string() + " -o " +
                                       (dir / "o.pgx").string() + args, dir / "log.txt"), 0) << args;
    auto theirs = testing::read_pgx_components(dir, "o", 3);
    ASSERT_TRUE(theirs.ok()) << theirs.status().to_string();
    codec::DecodeOptions options;
    options.reduce = c.reduce;
    options.tile = c.tile;
    auto ours = codec::decode(*data, options);
    ASSERT_TRUE(ours.ok()) << args << ": " << ours.status().to_string();
    for (int k = 0; k < 3; ++k) {
      ASSERT_EQ(ours->components[k].width, theirs->components[k].width) << args;
      ASSERT_EQ(ours->components[k].height, theirs->components[k].height) << args;
      EXPECT_TRUE(ours->components[k].samples == theirs->components[k].samples) << args << " component " << k;
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mallat
