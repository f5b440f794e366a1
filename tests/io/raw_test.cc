// Raw planes as opj_compress -F and opj_decompress read and write
// them (io/raw.h): the byte layout, round trips at 8, 12 and 16 bits, signed
// and unsigned, 4:2:0 and 4:2:2, the -F text, and what is refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "io/file.h"
#include "io/image_io.h"
#include "io/raw.h"
#include "tests/testdata.h"

namespace mallat {
namespace {

namespace fs = std::filesystem;

// Planes of this geometry with random samples over the whole range.
Image random_planes(const io::RawGeometry& g, uint32_t seed) {
  Image image = io::raw_planes(g);
  std::mt19937 rng(seed);
  for (Component& comp : image.components) {
    std::uniform_int_distribution<int32_t> value(comp.min_value(), comp.max_value());
    for (int32_t& v : comp.samples) v = value(rng);
  }
  return image;
}

std::vector<uint8_t> bytes_of(const fs::path& p) {
  auto b = io::read_file(p);
  EXPECT_TRUE(b.ok()) << b.status().to_string();
  return b.ok() ? *b : std::vector<uint8_t>{};
}

TEST(RawGeometry, ParsesOpjCompressForms) {
  auto g = io::parse_raw_geometry("352,288,3,8,u@1x1:2x2:2x2");
  ASSERT_TRUE(g.ok()) << g.status().to_string();
  EXPECT_EQ(g->width, 352);
  EXPECT_EQ(g->height, 288);
  EXPECT_EQ(g->precision, 8);
  EXPECT_FALSE(g->is_signed);
  ASSERT_EQ(g->num_components(), 3);
  EXPECT_EQ(g->subsampling[0], (std::array<int, 2>{1, 1}));
  EXPECT_EQ(g->subsampling[2], (std::array<int, 2>{2, 2}));
  EXPECT_EQ(g->file_bytes(), 352u * 288 + 2u * 176 * 144);
  EXPECT_EQ(io::raw_geometry_text(*g), "352,288,3,8,u@1x1:2x2:2x2");

  // No @ part: 1x1 for all; fewer factors than components: the last repeats.
  g = io::parse_raw_geometry("5,3,2,12,s");
  ASSERT_TRUE(g.ok());
  EXPECT_TRUE(g->is_signed);
  EXPECT_EQ(g->subsampling[1], (std::array<int, 2>{1, 1}));
  EXPECT_EQ(g->file_bytes(), 2u * 5 * 3 * 2);
  g = io::parse_raw_geometry("7,5,3,16,u@1x1:2x1");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->subsampling[2], (std::array<int, 2>{2, 1}));
  EXPECT_EQ(g->component_width(1), 4);  // ceil(7 / 2)
  EXPECT_EQ(g->component_height(1), 5);
}

TEST(RawGeometry, RefusesWrongFieldsNamingThem) {
  struct Case {
    const char* text;
    const char* says;
  };
  for (const Case& c : {Case{"352,288,3,8", "-F needs"}, Case{"0,288,3,8,u", "width and height"},
                        Case{"352,288,0,8,u", "number of components"}, Case{"352,288,3,17,u", "bit depth"},
                        Case{"352,288,3,8,x", "sign"}, Case{"352,288,3,8,u@2x", "sub-sampling factor '2x'"},
                        Case{"352,288,3,8,u@0x1", "1..255"}, Case{"352,288,2,8,u@1x1:2x2:2x2", "3 sub-sampling"}}) {
    auto g = io::parse_raw_geometry(c.text);
    ASSERT_FALSE(g.ok()) << c.text;
    EXPECT_NE(g.status().message().find(c.says), std::string::npos) << c.text << ": " << g.status().message();
  }
}

TEST(RawFile, ByteLayoutBigAndLittleEndian) {
  const fs::path dir = testing::make_temp_dir("raw-layout");
  auto g = io::parse_raw_geometry("3,2,2,12,s@1x1:2x2");
  ASSERT_TRUE(g.ok());
  Image image = random_planes(*g, 1);
  image.components[0].samples = {0, 1, -1, 2047, -2048, 256};
  image.components[1].samples = {-2, 300};
  ASSERT_TRUE(io::write_image(image, dir / "a.raw").ok());
  ASSERT_TRUE(io::write_image(image, dir / "a.rawl").ok());
  const std::vector<uint8_t> big = {0x00, 0x00, 0x00, 0x01, 0xFF, 0xFF, 0x07, 0xFF, 0xF8, 0x00, 0x01, 0x00,
                                    0xFF, 0xFE, 0x01, 0x2C};
  EXPECT_EQ(bytes_of(dir / "a.raw"), big);
  std::vector<uint8_t> little = big;
  for (size_t i = 0; i < little.size(); i += 2) std::swap(little[i], little[i + 1]);
  EXPECT_EQ(bytes_of(dir / "a.rawl"), little);
  fs::remove_all(dir);
}

TEST(RawFile, RoundTripsEveryDepthSignAndSubsampling) {
  const fs::path dir = testing::make_temp_dir("raw-round");
  uint32_t seed = 7;
  for (const char* text : {"17,9,1,8,u", "17,9,3,8,s@1x1:2x2:2x2", "33,20,3,12,u@1x1:2x2:2x2",
                           "33,20,3,12,s@1x1:2x1:2x1", "31,11,4,16,u@1x1:2x1:2x1:1x1", "31,11,3,16,s@1x1:2x2",
                           "9,9,2,5,u@3x3:1x1"}) {
    auto g = io::parse_raw_geometry(text);
    ASSERT_TRUE(g.ok()) << text;
    const Image image = random_planes(*g, ++seed);
    for (const char* ext : {".raw", ".rawl", ".yuv"}) {
      const fs::path path = dir / (std::string("p") + ext);
      ASSERT_TRUE(io::write_image(image, path).ok()) << text << ext;
      EXPECT_EQ(fs::file_size(path), g->file_bytes()) << text << ext;
      auto back = io::read_raw(path, *g, std::string(ext) != ".rawl");
      ASSERT_TRUE(back.ok()) << text << ext << ": " << back.status().to_string();
      ASSERT_EQ(back->num_components(), image.num_components());
      EXPECT_EQ(back->x1, g->width);
      EXPECT_EQ(back->y1, g->height);
      for (int c = 0; c < image.num_components(); ++c) {
        const Component &a = image.components[c], &b = back->components[c];
        EXPECT_EQ(b.width, a.width);
        EXPECT_EQ(b.height, a.height);
        EXPECT_EQ(b.dx, a.dx);
        EXPECT_EQ(b.dy, a.dy);
        EXPECT_EQ(b.precision, a.precision);
        EXPECT_EQ(b.is_signed, a.is_signed);
        EXPECT_TRUE(b.samples == a.samples) << text << ext << " component " << c;
      }
      // The -F text found from the planes reads them back.
      auto found = io::raw_geometry_of(*back);
      ASSERT_TRUE(found.ok()) << found.status().to_string();
      EXPECT_EQ(io::raw_geometry_text(*found), io::raw_geometry_text(*g));
    }
  }
  fs::remove_all(dir);
}

TEST(RawFile, ColourSpaceOfThePlanes) {
  const fs::path dir = testing::make_temp_dir("raw-colour");
  struct Case {
    const char* text;
    ColorSpace colour;
  };
  for (const Case& c : {Case{"8,8,1,8,u", ColorSpace::kGray}, Case{"8,8,3,8,u@1x1:2x2:2x2", ColorSpace::kYcc},
                        Case{"8,8,3,8,u@1x1:2x1:2x1", ColorSpace::kYcc}, Case{"8,8,3,8,u", ColorSpace::kUnknown},
                        Case{"8,8,2,8,u", ColorSpace::kUnknown}}) {
    auto g = io::parse_raw_geometry(c.text);
    ASSERT_TRUE(g.ok());
    ASSERT_TRUE(io::write_image(random_planes(*g, 3), dir / "c.raw").ok());
    auto image = io::read_raw(dir / "c.raw", *g, true);
    ASSERT_TRUE(image.ok());
    EXPECT_EQ(image->color_space, c.colour) << c.text;
  }
  fs::remove_all(dir);
}

TEST(RawFile, WrongSizeNamesBothByteCounts) {
  const fs::path dir = testing::make_temp_dir("raw-size");
  auto g = io::parse_raw_geometry("10,10,3,8,u@1x1:2x2:2x2");
  ASSERT_TRUE(g.ok());
  ASSERT_EQ(g->file_bytes(), 150u);
  for (size_t size : {149u, 151u, 0u, 300u}) {
    std::ofstream(dir / "s.raw", std::ios::binary) << std::string(size, '\0');
    auto image = io::read_raw(dir / "s.raw", *g, true);
    ASSERT_FALSE(image.ok()) << size;
    EXPECT_NE(image.status().message().find("exactly 150 bytes, the file has " + std::to_string(size)),
              std::string::npos)
        << image.status().message();
  }
  // A missing file says so.
  auto missing = io::read_raw(dir / "none.raw", *g, true);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("none.raw"), std::string::npos);
  // read_image cannot read raw files: the geometry is not in them.
  std::ofstream(dir / "s.raw", std::ios::binary) << std::string(150, '\0');
  auto plain = io::read_image(dir / "s.raw");
  ASSERT_FALSE(plain.ok());
  EXPECT_NE(plain.status().message().find("-F"), std::string::npos);
  fs::remove_all(dir);
}

TEST(RawFile, SampleOutsideThePrecisionIsRefused) {
  const fs::path dir = testing::make_temp_dir("raw-range");
  auto g = io::parse_raw_geometry("2,1,1,10,u");
  ASSERT_TRUE(g.ok());
  std::ofstream(dir / "r.raw", std::ios::binary) << std::string("\x03\xFF\x04\x00", 4);  // 1023, 1024
  auto image = io::read_raw(dir / "r.raw", *g, true);
  ASSERT_FALSE(image.ok());
  EXPECT_NE(image.status().message().find("column 1) is 1024"), std::string::npos) << image.status().message();
  fs::remove_all(dir);
}

TEST(RawFile, WriterRefusesMixedPrecisions) {
  auto g = io::parse_raw_geometry("4,4,2,8,u");
  ASSERT_TRUE(g.ok());
  Image image = random_planes(*g, 5);
  image.components[1].precision = 12;
  const fs::path dir = testing::make_temp_dir("raw-mixed");
  const Status s = io::write_image(image, dir / "m.raw");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("one precision"), std::string::npos) << s.message();
  EXPECT_FALSE(fs::exists(dir / "m.raw"));
  fs::remove_all(dir);
}

TEST(JoinComponents, DerivesFactorsFromSizes) {
  auto one = [](int64_t w, int64_t h) {
    auto image = make_image(w, h, 1, 8, false);
    EXPECT_TRUE(image.ok());
    return *image;
  };
  auto joined = io::join_components({one(35, 21), one(18, 11), one(18, 21), one(12, 7)}, {"a", "b", "c", "d"}, {});
  ASSERT_TRUE(joined.ok()) << joined.status().to_string();
  const std::array<int, 4> dx{1, 2, 2, 3}, dy{1, 2, 1, 3};
  for (int c = 0; c < 4; ++c) {
    EXPECT_EQ(joined->components[c].dx, dx[c]) << c;
    EXPECT_EQ(joined->components[c].dy, dy[c]) << c;
  }
  EXPECT_EQ(joined->x1, 35);
  EXPECT_EQ(joined->y1, 21);
  // 35 wide: no integer d has ceil(35 / d) = 13.
  auto bad = io::join_components({one(35, 21), one(13, 21)}, {"a.pgx", "b.pgx"}, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("b.pgx: its size 13x21"), std::string::npos) << bad.status().message();
  // Given factors that do not fit the sizes.
  auto wrong = io::join_components({one(35, 21), one(18, 11)}, {"a", "b"}, {{1, 1}, {3, 2}});
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("component 1's width"), std::string::npos) << wrong.status().message();
  // A file of two components is not one component.
  auto two = make_image(4, 4, 2, 8, false);
  ASSERT_TRUE(two.ok());
  auto many = io::join_components({*two}, {"two.ppm"}, {});
  ASSERT_FALSE(many.ok());
  EXPECT_NE(many.status().message().find("two.ppm: has 2 components"), std::string::npos);
}

TEST(ReferenceGridSize, B2ExtentsAtAnOrigin) {
  Image image;
  auto add = [&](int64_t w, int64_t h, int dx, int dy) {
    Component c;
    c.width = w;
    c.height = h;
    c.dx = dx;
    c.dy = dy;
    image.components.push_back(c);
  };
  add(35, 21, 1, 1);
  add(18, 11, 2, 2);
  auto size = reference_grid_size(image, 0, 0);
  ASSERT_TRUE(size.ok());
  EXPECT_EQ(size->width, 35);
  EXPECT_EQ(size->height, 21);
  // Origin 3: ceil(38 / 2) - ceil(3 / 2) = 17 chroma columns, not 18.
  EXPECT_FALSE(reference_grid_size(image, 3, 0).ok());
  image.components[1].width = 17;
  EXPECT_TRUE(reference_grid_size(image, 3, 0).ok());
  // All sub-sampled: the largest size that fits, or the image's own.
  image.components.erase(image.components.begin());
  image.components[0].width = 18;
  auto largest = reference_grid_size(image, 0, 0);
  ASSERT_TRUE(largest.ok());
  EXPECT_EQ(largest->width, 36);
  EXPECT_EQ(largest->height, 22);
  image.x1 = 35;
  image.y1 = 21;
  auto own = reference_grid_size(image, 0, 0);
  ASSERT_TRUE(own.ok());
  EXPECT_EQ(own->width, 35);
  EXPECT_EQ(own->height, 21);
  image.x1 = 33;  // not an extent of 18 columns at 2: the largest again
  auto other = reference_grid_size(image, 0, 0);
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->width, 36);
}

}  // namespace
}  // namespace mallat
