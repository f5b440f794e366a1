// io::write_strips against io::write_image: the same bytes for PNM, TIFF, PNG, PGX and raw planes
// whatever the strips' heights, and no file when a strip's samples do not
// fit or the rows fall short.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>

#include "io/file.h"
#include "io/image_io.h"
#include "io/mapped_file.h"
#include "io/strip_writer.h"
#include "tests/io/io_test_util.h"
#include "tests/testdata.h"

namespace mallat::io {
namespace {

namespace fs = std::filesystem;

// Rows [y0, y1) of `image` as a strip.
Image strip_of(const Image& image, int64_t y0, int64_t y1) {
  Image strip = image;
  for (size_t c = 0; c < image.components.size(); ++c) {
    Component& s = strip.components[c];
    s.height = y1 - y0;
    s.samples.assign(image.components[c].samples.begin() + y0 * s.width,
                     image.components[c].samples.begin() + y1 * s.width);
  }
  return strip;
}

Status write_in_strips(const Image& image, const fs::path& path, std::mt19937& rng, int64_t stop_at = -1) {
  return write_strips(path, {}, [&](StripWriter& writer) -> Status {
    Image header = image;
    for (Component& c : header.components) c.samples.clear();
    MALLAT_RETURN_IF_ERROR(writer.begin(header));
    const int64_t end = stop_at >= 0 ? stop_at : image.height();
    for (int64_t y = 0; y < end;) {
      const int64_t n = std::min<int64_t>(end - y, std::uniform_int_distribution<int64_t>(1, 9)(rng));
      MALLAT_RETURN_IF_ERROR(writer.rows(strip_of(image, y, y + n)));
      y += n;
    }
    return Status::Ok();
  });
}

// `image` through write_image to whole.EXT and in strips to strips.EXT: the same bytes.
void expect_same_bytes(const Image& image, const std::string& ext, const fs::path& dir, std::mt19937& rng) {
  SCOPED_TRACE(ext + " " + std::to_string(image.num_components()) + "x" +
               std::to_string(image.components[0].precision));
  const fs::path whole = dir / ("whole" + ext), strips = dir / ("strips" + ext);
  ASSERT_TRUE(write_image(image, whole).ok());
  ASSERT_TRUE(writes_strips(format_from_extension(strips)));
  const Status s = write_in_strips(image, strips, rng);
  ASSERT_TRUE(s.ok()) << s.to_string();
  EXPECT_TRUE(*read_file(whole) == *read_file(strips));
}

TEST(StripWriter, SameBytesAsWriteImage) {
  const fs::path dir = testing::make_temp_dir("strip-writer");
  std::mt19937 rng(3);
  struct Case {
    const char* ext;
    int components, precision;
  } cases[] = {{".pgm", 1, 8}, {".ppm", 3, 8}, {".pgm", 1, 16}, {".ppm", 3, 12}, {".tif", 1, 8},
               {".tif", 2, 16}, {".tif", 3, 8}, {".tif", 4, 16}, {".tif", 1, 5}, {".tif", 3, 10},
               {".png", 1, 8},  {".png", 2, 16}, {".png", 3, 8},  {".png", 4, 16}, {".png", 1, 3},  {".png", 3, 12}};
  for (const Case& c : cases)
    expect_same_bytes(testing::random_image(37, 23, c.components, c.precision, false, 7), c.ext, dir, rng);
}

// PNM of unsigned components of up to 8 bits also takes its raster as bytes
// (the streamed decoder's): the bytes of write_image; other precisions, and
// other formats, do not take it.
TEST(StripWriter, PnmRasterRowsSameBytesAsWriteImage) {
  const fs::path dir = testing::make_temp_dir("strip-writer-raster");
  for (auto [components, precision] : {std::pair{3, 8}, {1, 8}, {3, 5}}) {
    const Image image = testing::random_image(37, 23, components, precision, false, 11);
    const fs::path whole = dir / "whole.ppm", strips = dir / (components == 3 ? "strips.ppm" : "strips.pgm");
    ASSERT_TRUE(write_image(image, whole).ok());
    const Status s = write_strips(strips, {}, [&](StripWriter& writer) -> Status {
      Image header = image;
      for (Component& c : header.components) c.samples.clear();
      MALLAT_RETURN_IF_ERROR(writer.begin(header));
      EXPECT_TRUE(writer.takes_raster());
      for (int64_t y = 0; y < image.height(); y += 5) {
        const int64_t n = std::min<int64_t>(5, image.height() - y);
        std::vector<uint8_t> raster;
        for (int64_t i = y * image.width(); i < (y + n) * image.width(); ++i)
          for (const Component& c : image.components) raster.push_back(static_cast<uint8_t>(c.samples[static_cast<size_t>(i)]));
        MALLAT_RETURN_IF_ERROR(writer.raster_rows(raster, n));
      }
      return Status::Ok();
    });
    ASSERT_TRUE(s.ok()) << s.to_string();
    EXPECT_TRUE(*read_file(whole) == *read_file(strips)) << components << " components, " << precision << " bits";
  }
  for (const char* name : {"deep.pgm", "deep.tif"}) {
    const Status s = write_strips(dir / name, {}, [&](StripWriter& writer) -> Status {
      Image header = testing::random_image(4, 4, 1, std::string(name) == "deep.pgm" ? 12 : 8, false, 1);
      for (Component& c : header.components) c.samples.clear();
      MALLAT_RETURN_IF_ERROR(writer.begin(header));
      EXPECT_FALSE(writer.takes_raster()) << name;
      EXPECT_FALSE(writer.raster_rows(std::vector<uint8_t>(16), 4).ok()) << name;
      return internal_error("stop");
    });
    EXPECT_FALSE(s.ok());
  }
}

TEST(StripWriter, NoFileWhenAStripIsBadOrRowsAreMissing) {
  const fs::path dir = testing::make_temp_dir("strip-writer-bad");
  std::mt19937 rng(4);
  Image image = testing::random_image(20, 10, 3, 8, false, 9);
  EXPECT_FALSE(write_in_strips(image, dir / "short.ppm", rng, 6).ok());
  EXPECT_FALSE(fs::exists(dir / "short.ppm"));
  image.components[1].samples[150] = 300;  // beyond 8 bits
  for (const char* name : {"over.ppm", "over.tif", "over.png"}) {
    const Status s = write_in_strips(image, dir / name, rng);
    EXPECT_FALSE(s.ok()) << name;
    EXPECT_NE(s.message().find(name), std::string::npos) << s.message();
    EXPECT_FALSE(fs::exists(dir / name));
  }
  EXPECT_FALSE(writes_strips(Format::kBmp));
}

// The planar formats: raw planes (either byte order, signed or not) as
// write_image writes them; PGX one file per component as
// write_pgx_component writes each (<stem>_<c>.pgx for several); on an error
// no file, and never a temporary file left beside them.
TEST(StripWriter, PlanarFormatsSameBytesAndAllOrNothing) {
  const fs::path dir = testing::make_temp_dir("strip-writer-planar");
  std::mt19937 rng(5);
  struct Case {
    const char* ext;
    int components, precision;
    bool is_signed;
  } cases[] = {{".raw", 3, 12, false}, {".rawl", 1, 16, true}, {".raw", 2, 8, true},
               {".rawl", 4, 3, false}, {".pgx", 1, 8, false},  {".pgx", 1, 20, true}};
  for (const Case& c : cases)
    expect_same_bytes(testing::random_image(37, 23, c.components, c.precision, c.is_signed, 11), c.ext, dir, rng);
  Image three = testing::random_image(29, 17, 3, 10, false, 12);
  ASSERT_TRUE(write_in_strips(three, dir / "three.pgx", rng).ok());
  EXPECT_FALSE(fs::exists(dir / "three.pgx"));
  for (int c = 0; c < 3; ++c) {
    ASSERT_TRUE(write_pgx_component(three.components[c], dir / "one.pgx").ok());
    EXPECT_TRUE(*read_file(dir / "one.pgx") == *read_file(dir / ("three_" + std::to_string(c) + ".pgx"))) << c;
    fs::remove(dir / ("three_" + std::to_string(c) + ".pgx"));
  }
  three.components[2].samples[400] = 1024;  // beyond 10 bits, in the last component
  for (const char* name : {"over.raw", "over.pgx"}) {
    const Status s = write_in_strips(three, dir / name, rng);
    EXPECT_FALSE(s.ok()) << name;
    EXPECT_NE(s.message().find(name), std::string::npos) << s.message();
  }
  EXPECT_FALSE(write_in_strips(three, dir / "short.rawl", rng, 5).ok());
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string leaf = entry.path().filename().string();
    EXPECT_TRUE(leaf.rfind("whole", 0) == 0 || leaf.rfind("strips", 0) == 0 || leaf == "one.pgx") << leaf;
  }
}

}  // namespace
}  // namespace mallat::io

namespace mallat::io {
namespace {

TEST(MappedFile, BytesStayTheFilesAfterRelease) {
  const std::filesystem::path dir = testing::make_temp_dir("mapped-file");
  std::vector<uint8_t> bytes(3 * 4096 + 17);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 31 + 7);
  ASSERT_TRUE(write_file_atomically(dir / "f.bin", bytes).ok());
  auto mapped = map_file(dir / "f.bin");
  ASSERT_TRUE(mapped.ok()) << mapped.status().to_string();
  EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), mapped->bytes().begin(), mapped->bytes().end()));
  mapped->release();
  EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), mapped->bytes().begin(), mapped->bytes().end()));
  const auto missing = map_file(dir / "none.bin");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("none.bin"), std::string::npos);
  EXPECT_FALSE(map_file(dir).ok());
}

}  // namespace
}  // namespace mallat::io
