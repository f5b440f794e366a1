// write -> read must give back exactly the samples written, for every format
// and every depth each writer takes. Random samples on odd sizes, so that
// packed rows end mid-byte and BMP rows need padding.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "io/image_io.h"
#include "tests/io/io_test_util.h"

namespace mallat::io {
namespace {

namespace fs = std::filesystem;
using testing::random_image;

// "stem-a-b.ext" (snprintf: g++ 12 warns falsely on chains of string +).
std::string file_name(const char* stem, int a, int b, const char* ext) {
  char name[64];
  std::snprintf(name, sizeof name, "%s-%d-%d.%s", stem, a, b, ext);
  return name;
}

class RoundTrip : public testing::TempDirTest {
 protected:

  // Writes, reads back and compares; `read_precision` is what the format
  // stores (PNG rounds up to its next depth), 0 for the written precision.
  void check(const Image& image, const std::string& name, const WriteOptions& options = {},
             int read_precision = 0) {
    const fs::path path = dir_ / name;
    Status s = write_image(image, path, options);
    ASSERT_TRUE(s.ok()) << name << ": " << s.to_string();
    Result<Image> back = read_image(path);
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    ASSERT_EQ(back->num_components(), image.num_components()) << name;
    EXPECT_EQ(back->width(), image.width()) << name;
    EXPECT_EQ(back->height(), image.height()) << name;
    for (int c = 0; c < image.num_components(); ++c) {
      const Component& a = image.components[c];
      const Component& b = back->components[c];
      EXPECT_EQ(b.precision, read_precision ? read_precision : a.precision) << name;
      EXPECT_EQ(b.is_signed, a.is_signed) << name;
      ASSERT_EQ(b.samples, a.samples) << name << " component " << c;
    }
    if (image.num_components() > 1 || name.find(".pgx") == std::string::npos) {
      EXPECT_EQ(back->color_space, image.color_space) << name;
      EXPECT_EQ(back->has_alpha, image.has_alpha) << name;
    }
  }

};

TEST_F(RoundTrip, PngEveryDepthAndLayout) {
  uint32_t seed = 1;
  for (int bits : {1, 2, 4, 8, 16})
    check(random_image(37, 23, 1, bits, false, seed++), file_name("g", bits, 1, "png"));
  for (int n = 2; n <= 4; ++n)
    for (int bits : {8, 16})
      check(random_image(37, 23, n, bits, false, seed++),
            file_name("c", n, bits, "png"));
}

TEST_F(RoundTrip, PngInterlacedReadsLikeTheImage) {
  WriteOptions interlaced;
  interlaced.png_interlace = true;
  uint32_t seed = 100;
  for (int n = 1; n <= 4; ++n)
    for (int bits : {8, 16})
      check(random_image(37, 23, n, bits, false, seed++),
            file_name("i", n, bits, "png"), interlaced);
  check(random_image(5, 3, 1, 1, false, seed++), "i-small-1.png", interlaced);
  check(random_image(37, 23, 1, 2, false, seed++), "i-2.png", interlaced);
}

TEST_F(RoundTrip, PngEveryCompressionLevelAndFilterReadsBackEqual) {
  uint32_t seed = 200;
  for (int level = 0; level <= 9; ++level) {
    for (PngFilter filter : {PngFilter::kNone, PngFilter::kSub, PngFilter::kUp, PngFilter::kAverage,
                             PngFilter::kPaeth, PngFilter::kAll}) {
      WriteOptions options;
      options.png = {level, filter};
      const int n = 1 + static_cast<int>(seed % 4), bits = seed % 2 ? 8 : 16;
      check(random_image(19, 7, n, bits, false, seed++), file_name("z", level, static_cast<int>(filter), "png"),
            options);
    }
  }
  // A level outside 0..9 is refused, and no file is left.
  WriteOptions bad;
  bad.png.level = 10;
  EXPECT_EQ(write_image(random_image(4, 4, 3, 8, false, 1), dir_ / "bad.png", bad).code(),
            ErrorCode::kInvalidArgument);
  EXPECT_FALSE(fs::exists(dir_ / "bad.png"));
}

TEST_F(RoundTrip, PngOtherPrecisionsKeepTheirValuesInTheNextDepth) {
  // No scaling: a 12-bit sample is stored unchanged in 16 bits (sBIT says 12).
  check(random_image(37, 23, 3, 12, false, 7), "p12.png", {}, 16);
  check(random_image(37, 23, 1, 3, false, 8), "p3.png", {}, 4);
  check(random_image(37, 23, 2, 5, false, 9), "p5.png", {}, 8);
}

TEST_F(RoundTrip, PnmEveryPrecision) {
  for (int bits = 1; bits <= 16; ++bits) {
    check(random_image(37, 23, 1, bits, false, 200 + bits), file_name("g", bits, 1, "pgm"));
    check(random_image(37, 23, 3, bits, false, 300 + bits), file_name("c", bits, 3, "ppm"));
  }
}

TEST_F(RoundTrip, PgxEveryPrecisionSignedAndUnsigned) {
  for (int bits = 1; bits <= 31; ++bits)
    for (bool is_signed : {false, true}) {
      if (is_signed && bits == 1) continue;  // a 1-bit signed sample holds only -1 and 0
      const Image image = random_image(37, 23, 1, bits, is_signed, 400 + bits * 2 + is_signed);
      check(image, file_name("p", bits, is_signed, "pgx"));
    }
}

TEST_F(RoundTrip, PgxPerComponentFiles) {
  Image image = random_image(37, 23, 3, 12, true, 77);
  for (int c = 0; c < 3; ++c) {
    const fs::path path = dir_ / file_name("comp", c, 0, "pgx");
    ASSERT_TRUE(write_pgx_component(image.components[c], path).ok());
    Result<Image> back = read_image(path);
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    EXPECT_EQ(back->components[0].samples, image.components[c].samples);
    EXPECT_TRUE(back->components[0].is_signed);
  }
}

TEST_F(RoundTrip, BmpGreyAndRgb) {
  for (int64_t w : {1, 2, 3, 37})  // every row padding, 0 to 3 bytes
    for (int n : {1, 3})
      check(random_image(w, 5, n, 8, false, static_cast<uint32_t>(500 + w * n)),
            file_name("b", static_cast<int>(w), n, "bmp"));
}

#ifdef MALLAT_HAVE_TIFF
TEST_F(RoundTrip, TiffEveryPrecisionAndLayout) {
  for (int bits = 1; bits <= 16; ++bits)
    for (int n = 1; n <= 4; ++n)
      check(random_image(37, 23, n, bits, false, 600 + bits * 4 + n),
            file_name("t", bits, n, "tif"));
}
#endif

TEST_F(RoundTrip, FormatComesFromOptionsBeforeTheExtension) {
  const Image image = random_image(9, 4, 1, 8, false, 5);
  WriteOptions as_pgm;
  as_pgm.format = Format::kPnm;
  ASSERT_TRUE(write_image(image, dir_ / "x.png", as_pgm).ok());
  // The magic bytes win over the misleading extension when reading.
  auto bytes = std::filesystem::file_size(dir_ / "x.png");
  EXPECT_EQ(bytes, std::string("P5\n9 4\n255\n").size() + 36);
  Result<Image> back = read_image(dir_ / "x.png");
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->components[0].samples, image.components[0].samples);
}

}  // namespace
}  // namespace mallat::io
