// The same picture in several encodings must read to related samples. The
// relations were checked on the raw files with Python before being asserted.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "io/image_io.h"
#include "tests/io/io_test_util.h"

namespace mallat::io {
namespace {

using testing::image_path;
using testing::png_path;

Image must_read(const std::filesystem::path& path) {
  Result<Image> image = read_image(path);
  EXPECT_TRUE(image.ok()) << image.status().to_string();
  return image.ok() ? std::move(image).value() : Image{};
}

void expect_same_samples(const Image& a, const Image& b, const std::string& what) {
  ASSERT_EQ(a.num_components(), b.num_components()) << what;
  for (int c = 0; c < a.num_components(); ++c) {
    EXPECT_EQ(a.components[c].precision, b.components[c].precision) << what;
    EXPECT_EQ(a.components[c].samples, b.components[c].samples) << what << " component " << c;
  }
}

#ifdef MALLAT_HAVE_TIFF

TEST(CrossFormat, ContiguousAndPlanarTiffsAreEqual) {
  MALLAT_REQUIRE_TESTDATA("images");
  for (int bits : {2, 4, 8, 10, 12, 14, 16}) {
    char contig[64], planar[64];
    std::snprintf(contig, sizeof contig, "flower-rgb-contig-%02d.tif", bits);
    std::snprintf(planar, sizeof planar, "flower-rgb-planar-%02d.tif", bits);
    expect_same_samples(must_read(image_path(contig)), must_read(image_path(planar)), contig);
  }
}

TEST(CrossFormat, GreyTiffDepthsAgreeWithThe16BitFile) {
  MALLAT_REQUIRE_TESTDATA("images");
  const Image full = must_read(image_path("flower-minisblack-16.tif"));
  ASSERT_EQ(full.num_components(), 1);
  for (int bits = 1; bits <= 15; ++bits) {
    char name[64];
    std::snprintf(name, sizeof name, "flower-minisblack-%02d.tif", bits);
    const Image img = must_read(image_path(name));
    ASSERT_EQ(img.num_components(), 1);
    ASSERT_EQ(img.components[0].samples.size(), full.components[0].samples.size());
    // The n-bit file is the 16-bit one cut to n bits, give or take one for
    // rounding (exact for the odd depths, within one for the even ones).
    for (int64_t y = 0; y < 43; ++y)
      for (int64_t x = 0; x < 73; ++x) {
        const int32_t cut = testing::sample(full, 0, x, y) >> (16 - bits);
        ASSERT_LE(std::abs(cut - testing::sample(img, 0, x, y)), 1)
            << name << " at (" << x << "," << y << ")";
      }
  }
}

#endif

TEST(CrossFormat, PngSuiteTwins) {
  MALLAT_REQUIRE_TESTDATA("images/pngsuite");
  // The transparency-test picture as palette files with different backgrounds
  // (bKGD) and tRNS: equal RGBA after palette expansion.
  const Image ref = must_read(png_path("ftbbn3p08.png"));
  for (const char* twin : {"ftbgn3p08.png", "ftbwn3p08.png", "ftbyn3p08.png", "ftp1n3p08.png"})
    expect_same_samples(ref, must_read(png_path(twin)), twin);
  // The same picture as 16-bit RGB with a white colour key, twice.
  const Image rgb16 = must_read(png_path("ftbbn2c16.png"));
  expect_same_samples(rgb16, must_read(png_path("ftbgn2c16.png")), "ftbgn2c16.png");
  // ... and as 8-bit RGB with an 8-bit white key: the high bytes are equal
  // and the same pixels are transparent.
  const Image rgb8 = must_read(png_path("ftbrn2c08.png"));
  ASSERT_EQ(rgb16.num_components(), 4);
  ASSERT_EQ(rgb8.num_components(), 4);
  for (int c = 0; c < 3; ++c)
    for (size_t i = 0; i < rgb8.components[c].samples.size(); ++i)
      ASSERT_EQ(rgb16.components[c].samples[i] >> 8, rgb8.components[c].samples[i]);
  for (size_t i = 0; i < rgb8.components[3].samples.size(); ++i)
    ASSERT_EQ(rgb16.components[3].samples[i] == 0, rgb8.components[3].samples[i] == 0);
  // basn3p08 has no twin in the suite; the suite here has no interlaced
  // files either (interlace is tested by round trips through libpng).
}

TEST(CrossFormat, PpmWrittenAsEveryFormatReadsBackEqual) {
  MALLAT_REQUIRE_TESTDATA("images");
  const Image ppm = must_read(image_path("Bretagne1.ppm"));
  const auto dir = testing::make_temp_dir("io-cross");
  for (const char* name : {"b.png", "b.tif", "b.bmp", "b.ppm"}) {
#ifndef MALLAT_HAVE_TIFF
    if (std::string(name) == "b.tif") continue;  // written, but not readable in this build
#endif
    ASSERT_TRUE(write_image(ppm, dir / name).ok()) << name;
    expect_same_samples(ppm, must_read(dir / name), name);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mallat::io
