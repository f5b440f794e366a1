// Small files written byte by byte here, so the expected samples follow from
// the format specifications, not from this code.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "io/image_io.h"
#include "tests/io/io_test_util.h"

namespace mallat::io {
namespace {

namespace fs = std::filesystem;
using testing::sample;

class Handmade : public testing::TempDirTest {
 protected:
  Image read(const std::string& name, const std::vector<uint8_t>& bytes) {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    Result<Image> image = read_image(path);
    EXPECT_TRUE(image.ok()) << image.status().to_string();
    return image.ok() ? std::move(image).value() : Image{};
  }
  Image read(const std::string& name, const std::string& text) {
    return read(name, std::vector<uint8_t>(text.begin(), text.end()));
  }
};

TEST_F(Handmade, AsciiPnmWithComments) {
  const Image g = read("a.pgm", "P2\n# a comment\n3 2 # width height\n15\n0 1 2\n13 14 15\n");
  ASSERT_EQ(g.num_components(), 1);
  EXPECT_EQ(g.components[0].precision, 4);  // maxval 15
  EXPECT_EQ(g.components[0].samples, (std::vector<int32_t>{0, 1, 2, 13, 14, 15}));
  const Image c = read("a.ppm", "P3 2 1 4095\n#c\n1 2 3 4095 0 7\n");
  ASSERT_EQ(c.num_components(), 3);
  EXPECT_EQ(c.components[0].precision, 12);
  EXPECT_EQ(c.components[0].samples, (std::vector<int32_t>{1, 4095}));
  EXPECT_EQ(c.components[2].samples, (std::vector<int32_t>{3, 7}));
  EXPECT_EQ(c.color_space, ColorSpace::kRgb);
}

TEST_F(Handmade, BinaryPnm16BitIsBigEndian) {
  std::string text = "P5\n# comment\n2 1\n4095\n";
  text += std::string("\x0F\xFF\x01\x02", 4);
  const Image g = read("b.pgm", text);
  ASSERT_EQ(g.num_components(), 1);
  EXPECT_EQ(g.components[0].precision, 12);
  EXPECT_EQ(g.components[0].samples, (std::vector<int32_t>{4095, 0x0102}));
}

TEST_F(Handmade, PgxByteOrdersAndSigns) {
  std::string lm = "PG LM -12 2 1\n";
  lm += std::string("\x00\xF8\xFF\x07", 4);  // 0xF800 -> -2048, 0x07FF -> 2047
  const Image a = read("lm.pgx", lm);
  ASSERT_EQ(a.num_components(), 1);
  EXPECT_TRUE(a.components[0].is_signed);
  EXPECT_EQ(a.components[0].samples, (std::vector<int32_t>{-2048, 2047}));
  std::string ml = "PG ML + 20 1 2\n";  // a space after the sign; 4-byte containers
  ml += std::string("\x00\x0F\xFF\xFF\x00\x00\x00\x01", 8);
  const Image b = read("ml.pgx", ml);
  EXPECT_FALSE(b.components[0].is_signed);
  EXPECT_EQ(b.components[0].precision, 20);
  EXPECT_EQ(b.components[0].samples, (std::vector<int32_t>{0xFFFFF, 1}));
}

// A BMP with a BITMAPINFOHEADER: 14 + 40 bytes, then `palette`, then rows.
std::vector<uint8_t> bmp(int width, int height, int bpp, const std::vector<uint8_t>& palette,
                         const std::vector<uint8_t>& rows) {
  std::vector<uint8_t> b(54 + palette.size() + rows.size(), 0);
  auto put32 = [&](size_t at, uint32_t v) {
    for (int k = 0; k < 4; ++k) b[at + k] = static_cast<uint8_t>(v >> (8 * k));
  };
  b[0] = 'B';
  b[1] = 'M';
  put32(2, static_cast<uint32_t>(54 + palette.size() + rows.size()));
  put32(10, static_cast<uint32_t>(54 + palette.size()));
  put32(14, 40);
  put32(18, static_cast<uint32_t>(width));
  put32(22, static_cast<uint32_t>(height));
  b[26] = 1;
  b[28] = static_cast<uint8_t>(bpp);
  put32(46, static_cast<uint32_t>(palette.size() / 4));
  std::copy(palette.begin(), palette.end(), b.begin() + 54);
  std::copy(rows.begin(), rows.end(), b.begin() + 54 + static_cast<std::ptrdiff_t>(palette.size()));
  return b;
}

TEST_F(Handmade, BmpOrientationsAndDepths) {
  // 24-bit, 1x2, top-down (negative height): first row in the file is y = 0.
  // Each row: B, G, R + 1 padding byte.
  const Image td = read("td.bmp", bmp(1, -2, 24, {}, {3, 2, 1, 0, 6, 5, 4, 0}));
  ASSERT_EQ(td.num_components(), 3);
  EXPECT_EQ(sample(td, 0, 0, 0), 1);
  EXPECT_EQ(sample(td, 2, 0, 0), 3);
  EXPECT_EQ(sample(td, 0, 0, 1), 4);
  // The same rows bottom-up: the first row in the file is the last one.
  const Image bu = read("bu.bmp", bmp(1, 2, 24, {}, {3, 2, 1, 0, 6, 5, 4, 0}));
  EXPECT_EQ(sample(bu, 0, 0, 0), 4);
  EXPECT_EQ(sample(bu, 0, 0, 1), 1);
  // 32-bit BI_RGB: B, G, R, unused.
  const Image x32 = read("x.bmp", bmp(2, 1, 32, {}, {10, 20, 30, 99, 40, 50, 60, 99}));
  ASSERT_EQ(x32.num_components(), 3);
  EXPECT_EQ(x32.components[0].samples, (std::vector<int32_t>{30, 60}));
  EXPECT_EQ(x32.components[2].samples, (std::vector<int32_t>{10, 40}));
  // 8-bit palette of greys -> one grey component; colours -> RGB.
  const Image grey = read("g.bmp", bmp(3, 1, 8, {0, 0, 0, 0, 77, 77, 77, 0}, {1, 0, 1, 0}));
  ASSERT_EQ(grey.num_components(), 1);
  EXPECT_EQ(grey.components[0].samples, (std::vector<int32_t>{77, 0, 77}));
  const Image colour = read("c.bmp", bmp(2, 1, 8, {0, 0, 255, 0, 255, 0, 0, 0}, {1, 0, 0, 0}));
  ASSERT_EQ(colour.num_components(), 3);
  EXPECT_EQ(colour.components[0].samples, (std::vector<int32_t>{0, 255}));  // red
  EXPECT_EQ(colour.components[2].samples, (std::vector<int32_t>{255, 0}));  // blue
}


// A PNG chunk (PNG 5.3): length, type, data, CRC-32 of type and data.
std::vector<uint8_t> png_chunk(const char* type, const std::string& data) {
  std::vector<uint8_t> body(type, type + 4);
  body.insert(body.end(), data.begin(), data.end());
  uint32_t crc = 0xFFFFFFFFu;
  for (uint8_t byte : body) {
    crc ^= byte;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  crc ^= 0xFFFFFFFFu;
  const auto length = static_cast<uint32_t>(data.size());
  std::vector<uint8_t> chunk(12 + data.size());
  for (int k = 0; k < 4; ++k) {
    chunk[k] = static_cast<uint8_t>(length >> (24 - 8 * k));
    chunk[chunk.size() - 4 + k] = static_cast<uint8_t>(crc >> (24 - 8 * k));
  }
  std::copy(body.begin(), body.end(), chunk.begin() + 4);
  return chunk;
}

// The PNG reader skips every ancillary chunk but iCCP unread (io/png.cc):
// the samples of a file with sPLT, tEXt, zTXt-like private and gAMA chunks
// added are those of the file without them.
TEST_F(Handmade, PngAncillaryChunksAreSkipped) {
  MALLAT_REQUIRE_TESTDATA("images/pngsuite");
  const fs::path original = testing::png_path("basn0g08.png");
  std::ifstream in(original, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
  ASSERT_GT(bytes.size(), 33u);
  std::vector<uint8_t> extra;
  for (const auto& chunk :
       {png_chunk("sPLT", std::string("six\0\x08", 5) + std::string(600, '\x11')),
        png_chunk("tEXt", std::string("Comment\0written by a test", 26)),
        png_chunk("gAMA", std::string("\x00\x00\xB1\x8F", 4)),
        png_chunk("prVt", std::string(1000, 'x'))})
    extra.insert(extra.end(), chunk.begin(), chunk.end());
  bytes.insert(bytes.begin() + 33, extra.begin(), extra.end());  // after the signature and IHDR
  const Image with = read("extra.png", bytes);
  Result<Image> without = read_image(original);
  ASSERT_TRUE(without.ok()) << without.status().to_string();
  ASSERT_EQ(with.num_components(), 1);
  EXPECT_EQ(with.components[0].samples, without.value().components[0].samples);
}

#ifdef MALLAT_HAVE_TIFF
// An uncompressed little-endian TIFF, 20x18 RGB, planar, in 16x16 tiles: 2x2
// tiles per plane, tiles ordered plane by plane, row by row (TIFF 6.0,
// section 15). Sample (x, y, c) = (7x + 3y + 50c) mod 256.
TEST_F(Handmade, TiledPlanarTiff) {
  const int w = 20, h = 18, t = 16, planes = 3, tiles = 2 * 2 * planes;
  std::vector<uint8_t> f(8 + tiles * t * t, 0);
  auto put16 = [&](size_t at, uint32_t v) {
    f[at] = static_cast<uint8_t>(v);
    f[at + 1] = static_cast<uint8_t>(v >> 8);
  };
  auto put32 = [&](size_t at, uint32_t v) {
    put16(at, v & 0xFFFF);
    put16(at + 2, v >> 16);
  };
  f[0] = f[1] = 'I';
  put16(2, 42);
  for (int c = 0, k = 0; c < planes; ++c)
    for (int ty = 0; ty < 2; ++ty)
      for (int tx = 0; tx < 2; ++tx, ++k)
        for (int y = 0; y < t; ++y)
          for (int x = 0; x < t; ++x) {
            const int gx = tx * t + x, gy = ty * t + y;  // padding outside 20x18 stays 0
            if (gx < w && gy < h) f[8 + k * t * t + y * t + x] = static_cast<uint8_t>(7 * gx + 3 * gy + 50 * c);
          }
  // Arrays after the tiles: BitsPerSample[3], TileOffsets[12], TileByteCounts[12].
  const size_t bps = f.size(), offsets = bps + 6, counts = offsets + 4 * tiles, ifd = counts + 4 * tiles;
  const int entries = 11;
  f.resize(ifd + 2 + 12 * entries + 4, 0);
  put32(4, static_cast<uint32_t>(ifd));
  for (int c = 0; c < 3; ++c) put16(bps + 2 * c, 8);
  for (int k = 0; k < tiles; ++k) {
    put32(offsets + 4 * k, static_cast<uint32_t>(8 + k * t * t));
    put32(counts + 4 * k, t * t);
  }
  const uint32_t tags[entries][4] = {  // tag, type (3 SHORT, 4 LONG), count, value
      {256, 4, 1, w},   {257, 4, 1, h},  {258, 3, 3, static_cast<uint32_t>(bps)},
      {259, 3, 1, 1},   {262, 3, 1, 2},  {277, 3, 1, 3},
      {284, 3, 1, 2},   {322, 4, 1, t},  {323, 4, 1, t},
      {324, 4, tiles, static_cast<uint32_t>(offsets)},
      {325, 4, tiles, static_cast<uint32_t>(counts)},
  };
  put16(ifd, entries);
  for (int i = 0; i < entries; ++i) {
    put16(ifd + 2 + 12 * i, tags[i][0]);
    put16(ifd + 4 + 12 * i, tags[i][1]);
    put32(ifd + 6 + 12 * i, tags[i][2]);
    put32(ifd + 10 + 12 * i, tags[i][3]);
  }
  const Image image = read("tiled.tif", f);
  ASSERT_EQ(image.num_components(), 3);
  ASSERT_EQ(image.width(), w);
  ASSERT_EQ(image.height(), h);
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        ASSERT_EQ(sample(image, c, x, y), (7 * x + 3 * y + 50 * c) & 255) << x << "," << y << "," << c;
}
#endif

}  // namespace
}  // namespace mallat::io
