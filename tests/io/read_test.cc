// Reading the shared test images. Sizes come from the files' headers, read
// with a separate Python script (struct on IHDR / TIFF IFDs / PNM, BMP and
// PGX headers); sample values from an independent Python decoder (zlib +
// PNG unfiltering, raw TIFF strip bytes unpacked MSB-first, raw PPM/BMP/PGX
// bytes), not from this code.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "io/image_io.h"
#include "tests/io/io_test_util.h"

namespace mallat::io {
namespace {

using testing::image_path;
using testing::png_path;
using testing::reference_path;
using testing::sample;

struct Facts {
  const char* name;
  int width, height, components, precision;
};

// Components: grey 1, grey+alpha 2, RGB 3, RGBA 4; a palette becomes 8-bit
// RGB, plus alpha when it has tRNS; a grey/RGB tRNS colour key adds alpha.
const Facts kPngSuite[] = {
    {"basn0g01.png", 32, 32, 1, 1},   {"basn0g02.png", 32, 32, 1, 2},
    {"basn0g04.png", 32, 32, 1, 4},   {"basn0g08.png", 32, 32, 1, 8},
    {"basn0g16.png", 32, 32, 1, 16},  {"basn2c08.png", 32, 32, 3, 8},
    {"basn2c16.png", 32, 32, 3, 16},  {"basn3p01.png", 32, 32, 3, 8},
    {"basn3p02.png", 32, 32, 3, 8},   {"basn3p04.png", 32, 32, 3, 8},
    {"basn3p08.png", 32, 32, 3, 8},   {"basn4a08.png", 32, 32, 2, 8},
    {"basn4a16.png", 32, 32, 2, 16},  {"basn6a08.png", 32, 32, 4, 8},
    {"basn6a16.png", 32, 32, 4, 16},  {"ftbbn0g01.png", 32, 32, 2, 1},
    {"ftbbn0g02.png", 32, 32, 2, 2},  {"ftbbn0g04.png", 32, 32, 2, 4},
    {"ftbbn2c16.png", 32, 32, 4, 16}, {"ftbbn3p08.png", 32, 32, 4, 8},
    {"ftbgn2c16.png", 32, 32, 4, 16}, {"ftbgn3p08.png", 32, 32, 4, 8},
    {"ftbrn2c08.png", 32, 32, 4, 8},  {"ftbwn0g16.png", 32, 32, 2, 16},
    {"ftbwn3p08.png", 32, 32, 4, 8},  {"ftbyn3p08.png", 32, 32, 4, 8},
    {"ftp0n0g08.png", 32, 32, 1, 8},  {"ftp0n2c08.png", 32, 32, 3, 8},
    {"ftp0n3p08.png", 32, 32, 3, 8},  {"ftp1n3p08.png", 32, 32, 4, 8},
};

void expect_facts(const Image& image, const Facts& f) {
  EXPECT_EQ(image.width(), f.width) << f.name;
  EXPECT_EQ(image.height(), f.height) << f.name;
  ASSERT_EQ(image.num_components(), f.components) << f.name;
  for (const Component& c : image.components) {
    EXPECT_EQ(c.precision, f.precision) << f.name;
    EXPECT_FALSE(c.is_signed) << f.name;
    EXPECT_EQ(c.samples.size(), static_cast<size_t>(f.width) * f.height) << f.name;
    for (int32_t v : c.samples) ASSERT_TRUE(v >= 0 && v <= c.max_value()) << f.name;
  }
  EXPECT_EQ(image.color_space, f.components <= 2 ? ColorSpace::kGray : ColorSpace::kRgb) << f.name;
  EXPECT_EQ(image.has_alpha, f.components == 2 || f.components == 4) << f.name;
}

TEST(ReadPng, EverySuiteFileHasItsHeaderFacts) {
  MALLAT_REQUIRE_TESTDATA("images/pngsuite");
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(png_path(""))) {
    if (entry.path().extension() != ".png") continue;
    ++files;
    const std::string name = entry.path().filename().string();
    const Facts* facts = nullptr;
    for (const Facts& f : kPngSuite)
      if (name == f.name) facts = &f;
    ASSERT_NE(facts, nullptr) << "no facts listed for " << name;
    Result<Image> image = read_image(entry.path());
    ASSERT_TRUE(image.ok()) << image.status().to_string();
    expect_facts(*image, *facts);
  }
  EXPECT_EQ(files, static_cast<int>(std::size(kPngSuite)));
}

struct Probe {
  const char* file;
  int x, y;
  std::vector<int32_t> values;  // one per component
};

void expect_probes(const std::filesystem::path& folder, const std::vector<Probe>& probes) {
  for (const Probe& p : probes) {
    Result<Image> image = read_image(folder / p.file);
    ASSERT_TRUE(image.ok()) << image.status().to_string();
    ASSERT_EQ(image->num_components(), static_cast<int>(p.values.size())) << p.file;
    for (int c = 0; c < image->num_components(); ++c)
      EXPECT_EQ(sample(*image, c, p.x, p.y), p.values[c])
          << p.file << " (" << p.x << "," << p.y << ") component " << c;
  }
}

TEST(ReadPng, SamplesMatchAnIndependentDecoder) {
  MALLAT_REQUIRE_TESTDATA("images/pngsuite");
  expect_probes(png_path(""), {
      {"basn0g01.png", 0, 0, {1}},
      {"basn0g01.png", 31, 0, {0}},
      {"basn0g02.png", 4, 3, {1}},
      {"basn0g02.png", 12, 3, {3}},
      {"basn0g02.png", 31, 31, {2}},
      {"basn0g04.png", 7, 3, {1}},
      {"basn0g04.png", 31, 31, {14}},
      {"basn0g16.png", 10, 20, {33280}},  // no gamma applied despite gAMA
      {"basn2c16.png", 0, 0, {65535, 65535, 0}},
      {"basn2c16.png", 31, 5, {0, 54965, 10570}},
      {"basn4a16.png", 3, 4, {5242, 12685}},
      {"basn4a16.png", 20, 30, {45196, 4229}},
      {"basn6a08.png", 0, 0, {255, 0, 8, 0}},
      {"basn6a08.png", 17, 11, {160, 255, 5, 139}},
      {"basn3p08.png", 0, 0, {1, 0, 0}},
      {"basn3p08.png", 12, 25, {204, 255, 153}},
      {"basn3p02.png", 1, 1, {0, 0, 255}},
      // Grey key 15 in tRNS, and pixel (0,0) is 15: transparent.
      {"ftbbn0g04.png", 0, 0, {15, 0}},
      // Index 0 is (255,255,255) with tRNS alpha 0.
      {"ftbbn3p08.png", 0, 0, {255, 255, 255, 0}},
  });
}

TEST(ReadPnmBmp, SizesAndSamples) {
  MALLAT_REQUIRE_TESTDATA("images");
  for (const char* name : {"Bretagne1.ppm", "Cevennes2.ppm", "Rome.bmp"}) {
    Result<Image> image = read_image(image_path(name));
    ASSERT_TRUE(image.ok()) << image.status().to_string();
    expect_facts(*image, {name, 640, 480, 3, 8});
  }
  // Bytes of the P6 raster at offset 15 + 3 * (y * 640 + x), read with Python.
  // Rome.bmp: 24-bit bottom-up, BGR at 54 + (479 - y) * 1920 + 3 * x.
  expect_probes(image_path(""), {
      {"Bretagne1.ppm", 0, 0, {160, 121, 53}},
      {"Bretagne1.ppm", 639, 479, {255, 253, 244}},
      {"Bretagne1.ppm", 200, 100, {167, 134, 78}},
      {"Rome.bmp", 0, 0, {48, 31, 12}},
      {"Rome.bmp", 639, 479, {72, 44, 31}},
      {"Rome.bmp", 200, 100, {30, 23, 14}},
  });
}

#ifdef MALLAT_HAVE_TIFF

TEST(ReadTiff, FlowerFilesHaveTheirHeaderFacts) {
  MALLAT_REQUIRE_TESTDATA("images");
  for (int bits = 1; bits <= 16; ++bits) {
    char name[64];
    std::snprintf(name, sizeof name, "flower-minisblack-%02d.tif", bits);
    Result<Image> image = read_image(image_path(name));
    ASSERT_TRUE(image.ok()) << image.status().to_string();
    expect_facts(*image, {name, 73, 43, 1, bits});
  }
  for (int bits : {2, 4, 8, 10, 12, 14, 16})
    for (const char* layout : {"contig", "planar"}) {
      char name[64];
      std::snprintf(name, sizeof name, "flower-rgb-%s-%02d.tif", layout, bits);
      Result<Image> image = read_image(image_path(name));
      ASSERT_TRUE(image.ok()) << image.status().to_string();
      expect_facts(*image, {name, 73, 43, 3, bits});
    }
}

TEST(ReadTiff, SamplesMatchTheRawStrips) {
  MALLAT_REQUIRE_TESTDATA("images");
  expect_probes(image_path(""), {
      {"flower-minisblack-01.tif", 0, 0, {1}},
      {"flower-minisblack-03.tif", 0, 0, {2}},
      {"flower-minisblack-03.tif", 72, 42, {2}},
      {"flower-minisblack-12.tif", 0, 0, {1387}},
      {"flower-minisblack-12.tif", 72, 42, {1098}},
      {"flower-minisblack-12.tif", 36, 20, {1097}},
      {"flower-minisblack-16.tif", 0, 0, {22203}},
      {"flower-minisblack-16.tif", 72, 42, {17584}},
      {"flower-rgb-contig-10.tif", 0, 0, {354, 354, 285}},
      {"flower-rgb-contig-10.tif", 72, 42, {274, 280, 240}},
      {"flower-rgb-planar-10.tif", 36, 20, {299, 292, 115}},
      {"flower-rgb-contig-16.tif", 36, 20, {19187, 18713, 7407}},
      {"flower-rgb-planar-02.tif", 0, 0, {1, 1, 0}},
  });
}

TEST(ReadTiff, ConformanceReferenceTiffs) {
  MALLAT_REQUIRE_TESTDATA("conformance/reference");
  // Sizes from the IFDs; most are LZW with a horizontal predictor.
  const Facts kJp2Tiffs[] = {
      {"jp2_1.tif", 768, 512, 3, 8}, {"jp2_2.tif", 480, 640, 3, 8}, {"jp2_3.tif", 480, 640, 3, 8},
      {"jp2_4.tif", 768, 512, 3, 8}, {"jp2_5.tif", 768, 512, 3, 8}, {"jp2_6.tif", 768, 512, 3, 8},
      {"jp2_7.tif", 480, 640, 3, 8}, {"jp2_8.tif", 700, 400, 3, 8}, {"jp2_9.tif", 768, 512, 3, 8},
  };
  for (const Facts& f : kJp2Tiffs) {
    Result<Image> image = read_image(reference_path(f.name));
    ASSERT_TRUE(image.ok()) << image.status().to_string();
    expect_facts(*image, f);
  }
}

#else

TEST(ReadTiff, ThisBuildSaysItHasNoTiffSupport) {
  MALLAT_REQUIRE_TESTDATA("images");
  Result<Image> image = read_image(image_path("flower-minisblack-08.tif"));
  ASSERT_FALSE(image.ok());
  EXPECT_EQ(image.status().code(), ErrorCode::kUnsupported);
  EXPECT_NE(image.status().message().find("no TIFF support"), std::string::npos);
  EXPECT_NE(image.status().message().find("flower-minisblack-08.tif"), std::string::npos);
}

#endif

TEST(ReadPgx, EveryConformanceReferenceHasTheSizeOfItsHeader) {
  MALLAT_REQUIRE_TESTDATA("conformance/reference");
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(reference_path(""))) {
    if (entry.path().extension() != ".pgx") continue;
    ++files;
    // The header, parsed here with sscanf: the sign is optional.
    FILE* f = std::fopen(entry.path().c_str(), "rb");
    ASSERT_NE(f, nullptr);
    char line[128] = {};
    ASSERT_NE(std::fgets(line, sizeof line, f), nullptr);
    std::fclose(f);
    char order[3] = {}, sign = '+';
    int bits = 0, w = 0, h = 0;
    const char* p = line + 2;
    ASSERT_EQ(std::sscanf(p, " %2s", order), 1);
    p = std::strstr(line, order) + 2;
    while (*p == ' ') ++p;
    if (*p == '+' || *p == '-') sign = *p++;
    ASSERT_EQ(std::sscanf(p, "%d %d %d", &bits, &w, &h), 3) << line;
    Result<Image> image = read_image(entry.path());
    ASSERT_TRUE(image.ok()) << image.status().to_string();
    ASSERT_EQ(image->num_components(), 1);
    const Component& c = image->components[0];
    EXPECT_EQ(c.width, w) << entry.path();
    EXPECT_EQ(c.height, h) << entry.path();
    EXPECT_EQ(c.precision, bits) << entry.path();
    EXPECT_EQ(c.is_signed, sign == '-') << entry.path();
    // The file is exactly the header plus one container per sample.
    const int bytes = bits <= 8 ? 1 : bits <= 16 ? 2 : 4;
    EXPECT_EQ(std::filesystem::file_size(entry.path()), std::strlen(line) + size_t(w) * h * bytes)
        << entry.path();
  }
  EXPECT_EQ(files, 49);  // ls conformance/reference/*.pgx | wc -l
}

TEST(ReadPgx, SamplesMatchTheRawBytes) {
  MALLAT_REQUIRE_TESTDATA("conformance/reference");
  // Big-endian containers after the header line, read with Python
  // (int.from_bytes, signed for '-'); index = y * width + x.
  expect_probes(reference_path(""), {
      {"c1p0_03_0.pgx", 0, 0, {-6}},
      {"c1p0_03_0.pgx", 1, 0, {-6}},
      {"c1p0_03_0.pgx", 1000 % 256, 1000 / 256, {-5}},
      {"c1p0_03_0.pgx", 255, 255, {2}},
      {"c1p0_06_0.pgx", 0, 0, {3620}},
      {"c1p0_06_0.pgx", 512, 128, {1708}},
      {"c1p0_06_0.pgx", 700 % 513, 700 / 513, {964}},
      {"c1p0_08_0.pgx", 0, 0, {-1723}},
      {"c1p0_08_0.pgx", 5000 % 257, 5000 / 257, {-1375}},
      {"c1p1_04_0.pgx", 12345 % 1024, 12345 / 1024, {3781}},
  });
}

}  // namespace
}  // namespace mallat::io
