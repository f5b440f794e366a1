// Bad input gives an error that names the file, never a crash; a failed
// write leaves no file behind.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "io/file.h"
#include "io/image_io.h"
#include "tests/io/io_test_util.h"

namespace mallat::io {
namespace {

namespace fs = std::filesystem;

class Errors : public testing::TempDirTest {
 protected:

  fs::path write_bytes(const std::string& name, const std::vector<uint8_t>& bytes) {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return path;
  }
  fs::path write_text(const std::string& name, const std::string& text) {
    return write_bytes(name, std::vector<uint8_t>(text.begin(), text.end()));
  }

  // The read fails and its message names the file.
  static void expect_read_error(const fs::path& path, ErrorCode code = ErrorCode::kOk) {
    Result<Image> image = read_image(path);
    ASSERT_FALSE(image.ok()) << path << " was read";
    EXPECT_NE(image.status().message().find(path.filename().string()), std::string::npos)
        << image.status().message();
    if (code != ErrorCode::kOk) {
      EXPECT_EQ(image.status().code(), code) << image.status().message();
    }
  }

};

TEST_F(Errors, MissingFiles) {
  for (const char* name : {"none.png", "none.tif", "none.ppm", "none.pgx", "none.bmp", "none"})
    expect_read_error(dir_ / name, ErrorCode::kIoError);
}

TEST_F(Errors, TruncatedPnmSaysWhereItEnds) {
  // 4x3 RGB: 12 bytes a row; the raster ends 5 bytes into row 2.
  std::string text = "P6\n4 3\n255\n" + std::string(29, '\x7f');
  Result<Image> image = read_image(write_text("short.ppm", text));
  ASSERT_FALSE(image.ok());
  const std::string& m = image.status().message();
  EXPECT_EQ(image.status().code(), ErrorCode::kCorruptData) << m;
  EXPECT_NE(m.find("short.ppm (PNM)"), std::string::npos) << m;
  EXPECT_NE(m.find("truncated"), std::string::npos) << m;
  EXPECT_NE(m.find("needs 36 bytes"), std::string::npos) << m;
  EXPECT_NE(m.find("has 29"), std::string::npos) << m;
  EXPECT_NE(m.find("ends in row 2"), std::string::npos) << m;
  // A sample above maxval is found in the raster read in pieces too.
  text = "P5\n2 2\n100\n" + std::string("\x01\x02\x65\x03");
  image = read_image(write_text("over.pgm", text));
  ASSERT_FALSE(image.ok());
  EXPECT_NE(image.status().message().find("sample 101 exceeds maxval 100"), std::string::npos)
      << image.status().message();
}

TEST_F(Errors, TruncatedSharedFilesOfEveryFormat) {
  MALLAT_REQUIRE_TESTDATA("images");
  std::vector<fs::path> sources = {
      testing::png_path("basn2c16.png"),         testing::png_path("basn0g01.png"),
      testing::png_path("basn3p08.png"),         testing::image_path("Bretagne1.ppm"),
      testing::image_path("Rome.bmp"),           testing::reference_path("c1p0_06_0.pgx"),
      testing::reference_path("c1p0_03_0.pgx"),
  };
#ifdef MALLAT_HAVE_TIFF
  for (const char* name : {"flower-rgb-contig-12.tif", "flower-rgb-planar-10.tif",
                           "flower-minisblack-05.tif"})
    sources.push_back(testing::image_path(name));
  sources.push_back(testing::reference_path("jp2_1.tif"));
#endif
  int cuts = 0;
  for (const fs::path& source : sources) {
    Result<std::vector<uint8_t>> bytes = read_file(source);
    ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
    const size_t size = bytes->size();
    // The last bytes of a TIFF may be ones no reader needs (a zero next-IFD
    // offset, the tail of an LZW end code), so TIFFs lose their last 100.
    const size_t tail = source.extension() == ".tif" ? 100 : 1;
    for (size_t cut : {size_t{0}, size_t{1}, size_t{5}, size_t{20}, size / 3, size / 2, size - tail}) {
      const std::string name = "cut" + std::to_string(cut) + "-" + source.filename().string();
      const fs::path path =
          write_bytes(name, std::vector<uint8_t>(bytes->begin(), bytes->begin() + cut));
      expect_read_error(path);
      ++cuts;
    }
  }
  EXPECT_GE(cuts, 49);
}

// Random byte changes in real files: each read either succeeds with a
// consistent image or fails with a message naming the file (run under
// MALLAT_SANITIZE=ON this also catches out-of-bounds reads).
TEST_F(Errors, CorruptedBytesGiveAnImageOrANamedError) {
  MALLAT_REQUIRE_TESTDATA("images");
  std::vector<fs::path> sources = {
      testing::png_path("basn3p04.png"),  testing::png_path("basn4a16.png"),
      testing::png_path("ftbbn0g02.png"), testing::reference_path("c1p0_12_0.pgx"),
      testing::reference_path("c1p1_06_0.pgx"),
  };
#ifdef MALLAT_HAVE_TIFF
  sources.push_back(testing::image_path("flower-rgb-planar-04.tif"));
  sources.push_back(testing::image_path("flower-minisblack-07.tif"));
#endif
  std::mt19937 rng(11);
  int errors = 0;
  for (const fs::path& source : sources) {
    Result<std::vector<uint8_t>> original = read_file(source);
    ASSERT_TRUE(original.ok());
    for (int trial = 0; trial < 60; ++trial) {
      std::vector<uint8_t> bytes = *original;
      // Mostly in the headers, where the sizes and offsets live.
      for (int k = 0; k < 4; ++k) {
        const size_t span = (trial % 2 == 0) ? std::min<size_t>(bytes.size(), 64) : bytes.size();
        bytes[rng() % span] = static_cast<uint8_t>(rng());
      }
      std::string name = "m";
      name += std::to_string(trial);
      name += source.extension().string();
      const fs::path path = write_bytes(name, bytes);
      Result<Image> image = read_image(path);
      if (image.ok()) {
        for (const Component& c : image->components) {
          ASSERT_EQ(c.samples.size(), static_cast<size_t>(c.width * c.height));
          for (int32_t v : c.samples) ASSERT_TRUE(v >= c.min_value() && v <= c.max_value());
        }
      } else {
        ++errors;
        EXPECT_NE(image.status().message().find(path.filename().string()), std::string::npos)
            << image.status().message();
      }
    }
  }
  EXPECT_GT(errors, 0);
}

// The memory limit: an image whose samples need more than it is refused
// with a resource-limit error that names the file and the limit, in every
// format; within the limit the same file reads.
TEST_F(Errors, ImagesAboveTheMemoryLimitAreRefused) {
  auto image = make_image(1200, 900, 3, 8, false);
  ASSERT_TRUE(image.ok());
  const uint64_t needs = 1200ull * 900 * 3 * 4;
  for (const char* name : {"big.png", "big.ppm", "big.bmp", "big.tif"}) {
    const fs::path path = dir_ / name;
    if (!can_write(format_from_extension(path)) || !can_read(format_from_extension(path))) continue;
    ASSERT_TRUE(write_image(*image, path).ok()) << name;
    Result<Image> refused = read_image(path, needs - 1);
    ASSERT_FALSE(refused.ok()) << name;
    EXPECT_EQ(refused.status().code(), ErrorCode::kResourceLimit) << refused.status().message();
    EXPECT_NE(refused.status().message().find(name), std::string::npos) << refused.status().message();
    EXPECT_NE(refused.status().message().find("memory limit"), std::string::npos) << refused.status().message();
    EXPECT_TRUE(read_image(path, needs).ok()) << name;
  }
  // PGX: one component.
  const fs::path pgx = dir_ / "big.pgx";
  ASSERT_TRUE(write_pgx_component(image->components[0], pgx).ok());
  EXPECT_EQ(read_image(pgx, 1200ull * 900 * 4 - 1).status().code(), ErrorCode::kResourceLimit);
  EXPECT_TRUE(read_image(pgx, 1200ull * 900 * 4).ok());
}

// A binary PNM sample above maxval is refused with the sample named:
// one-byte samples under a maxval below 255, two-byte samples, in any
// channel (the reader checks each plane as it fills it).
TEST_F(Errors, PnmSamplesAboveMaxval) {
  auto file = [](const std::string& header, std::vector<uint8_t> raster) {
    std::vector<uint8_t> bytes(header.begin(), header.end());
    bytes.insert(bytes.end(), raster.begin(), raster.end());
    return bytes;
  };
  const fs::path grey = write_bytes("grey.pgm", file("P5\n2 1\n100\n", {7, 200}));
  expect_read_error(grey, ErrorCode::kCorruptData);
  EXPECT_NE(read_image(grey).status().message().find("sample 200 exceeds maxval 100"), std::string::npos);
  const fs::path rgb16 = write_bytes("rgb16.ppm", file("P6\n1 1\n1000\n", {0, 1, 0, 2, 0x07, 0xD0}));
  expect_read_error(rgb16, ErrorCode::kCorruptData);
  EXPECT_NE(read_image(rgb16).status().message().find("sample 2000 exceeds maxval 1000"), std::string::npos);
  // At maxval itself, and every byte under 255, the samples are read.
  const fs::path full = write_bytes("full.ppm", file("P6\n1 1\n255\n", {255, 0, 17}));
  Result<Image> image = read_image(full);
  ASSERT_TRUE(image.ok()) << image.status().to_string();
  EXPECT_EQ(image->components[0].samples[0], 255);
  EXPECT_EQ(image->components[2].samples[0], 17);
}

TEST_F(Errors, Garbage) {
  std::mt19937 rng(3);
  std::vector<uint8_t> noise(4096);
  for (uint8_t& b : noise) b = static_cast<uint8_t>(rng());
  noise[0] = 'x';  // no magic number can match
  for (const char* name : {"noise.png", "noise.tif", "noise.ppm", "noise.pgx", "noise.bmp"})
    expect_read_error(write_bytes(name, noise));
  expect_read_error(write_bytes("noise.xyz", noise), ErrorCode::kUnsupported);
  // Right magic, wrong body.
  std::vector<uint8_t> png = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
  png.insert(png.end(), noise.begin(), noise.end());
  expect_read_error(write_bytes("magic.png", png), ErrorCode::kCorruptData);
  expect_read_error(write_text("bad.pgx", "PG XY +8 2 2\n1234"), ErrorCode::kCorruptData);
  expect_read_error(write_text("bad.ppm", "P6\n2 x\n255\n123456789012"), ErrorCode::kCorruptData);
  expect_read_error(write_text("over.pgm", "P2\n2 1\n15\n3 16\n"), ErrorCode::kCorruptData);
  expect_read_error(write_text("range.pgx", "PG ML -4 2 1\n\x07\x08"), ErrorCode::kCorruptData);
}

TEST_F(Errors, HugeClaimsAreRefusedBeforeAllocating) {
  expect_read_error(write_text("huge.pgx", "PG ML +16 100000 100000\n\x01\x02"));
  expect_read_error(write_text("huge.ppm", "P6\n16000000 16000000\n65535\n\x01\x02"));
  expect_read_error(write_text("huge.pgm", "P2\n16000000 16000000\n255\n1 2 3"));
  std::vector<uint8_t> bmp(54 + 16, 0);
  bmp[0] = 'B';
  bmp[1] = 'M';
  bmp[10] = 54;
  bmp[14] = 40;
  bmp[18] = 0xFF, bmp[19] = 0xFF, bmp[20] = 0x7F;  // width 8388607
  bmp[22] = 0xFF, bmp[23] = 0xFF, bmp[24] = 0x7F;  // height 8388607
  bmp[28] = 24;
  expect_read_error(write_bytes("huge.bmp", bmp), ErrorCode::kCorruptData);
}

TEST_F(Errors, UnsupportedVariants) {
  expect_read_error(write_text("bitmap.pbm", "P4\n8 1\n\xff"), ErrorCode::kUnsupported);
  expect_read_error(write_text("wide.pgx", "PG ML +40 1 1\n\x01\x02\x03\x04\x05"),
                    ErrorCode::kUnsupported);
  // Rome.bmp's header with RLE8 compression (BI_RLE8 = 1 at offset 30).
  MALLAT_REQUIRE_TESTDATA("images");
  Result<std::vector<uint8_t>> rome = read_file(testing::image_path("Rome.bmp"));
  ASSERT_TRUE(rome.ok());
  (*rome)[30] = 1;
  expect_read_error(write_bytes("rle.bmp", *rome), ErrorCode::kUnsupported);
}

TEST_F(Errors, TiffWithoutLibtiffOrBroken) {
  // A TIFF header whose IFD offset points past the end.
  const std::vector<uint8_t> tiff = {'I', 'I', 42, 0, 0xFF, 0xFF, 0, 0};
#ifdef MALLAT_HAVE_TIFF
  expect_read_error(write_bytes("broken.tif", tiff), ErrorCode::kCorruptData);
#else
  expect_read_error(write_bytes("broken.tif", tiff), ErrorCode::kUnsupported);
#endif
}

TEST_F(Errors, FailedWritesLeaveNoFile) {
  const Image rgb12 = testing::random_image(8, 8, 3, 12, false, 1);
  const Image signed8 = testing::random_image(8, 8, 1, 8, true, 2);
  Image five = testing::random_image(8, 8, 5, 8, false, 3);
  Image uneven = testing::random_image(8, 8, 3, 8, false, 4);
  uneven.components[2].precision = 7;
  Image out_of_range = testing::random_image(8, 8, 1, 8, false, 5);
  out_of_range.components[0].samples[3] = 256;
  Image subsampled = testing::random_image(8, 8, 3, 8, false, 6);
  subsampled.components[1].dx = 2;
  struct Case {
    const Image* image;
    const char* name;
  } cases[] = {
      {&rgb12, "rgb12.bmp"},        // BMP holds 8 bits
      {&rgb12, "rgb12.pgx"},        // PGX holds one component
      {&signed8, "signed.png"},     // unsigned formats
      {&signed8, "signed.tif"},
      {&signed8, "signed.ppm"},
      {&five, "five.png"},          // too many components
      {&five, "five.tif"},
      {&uneven, "uneven.png"},      // mixed precisions
      {&out_of_range, "range.pgm"}, // a sample beyond its precision
      {&out_of_range, "range.pgx"},
      {&subsampled, "sub.ppm"},
      {&rgb12, "rgb12.unknown"},    // no format
  };
  for (const Case& c : cases) {
    const fs::path path = dir_ / c.name;
    Status s = write_image(*c.image, path);
    EXPECT_FALSE(s.ok()) << c.name;
    EXPECT_NE(s.message().find(c.name), std::string::npos) << s.message();
    EXPECT_FALSE(fs::exists(path)) << c.name;
  }
  // Nothing, not even a temporary file, was left in the folder.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 0);
  // A folder that does not exist.
  Status s = write_image(rgb12, dir_ / "absent" / "x.ppm");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("x.ppm"), std::string::npos);
}

TEST_F(Errors, FormatDetection) {
  EXPECT_EQ(format_from_extension("a.PNG"), Format::kPng);
  EXPECT_EQ(format_from_extension("a.tiff"), Format::kTiff);
  EXPECT_EQ(format_from_extension("a.pgm"), Format::kPnm);
  EXPECT_EQ(format_from_extension("a.pgx"), Format::kPgx);
  EXPECT_EQ(format_from_extension("a.bmp"), Format::kBmp);
  EXPECT_EQ(format_from_extension("a.jp2"), Format::kUnknown);
  const unsigned char mm[] = {'M', 'M', 0, 42};
  EXPECT_EQ(format_from_magic(mm, 4), Format::kTiff);
  const unsigned char pgx[] = {'P', 'G', ' ', 'M'};
  EXPECT_EQ(format_from_magic(pgx, 4), Format::kPgx);
  const unsigned char p5[] = {'P', '5', '\n'};
  EXPECT_EQ(format_from_magic(p5, 3), Format::kPnm);
  EXPECT_EQ(format_from_magic(p5, 1), Format::kUnknown);
}

}  // namespace
}  // namespace mallat::io
