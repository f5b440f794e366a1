// The strip readers (io/strip_reader.h) give the samples, layout
// and errors read_image gives, whatever the order and size of the strips
// the components are asked for in: PGX, PAM, and TIFF as libtiff writes it
// (tiles, strips, planar, BigTIFF) and as the shared test images hold it.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "io/image_io.h"
#include "io/strip_reader.h"
#include "tests/io/io_test_util.h"
#ifdef MALLAT_HAVE_TIFF
#include "tests/io/tiff_maker.h"
#endif

namespace mallat::io {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir() {
  const fs::path dir = fs::temp_directory_path() / ("mallat_strip_reader_" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir;
}

// Reads every component through open_strips, component c in strips of
// 3 + 4c rows, the components taking turns, and checks it against read_image.
void expect_strips_match(const fs::path& path) {
  SCOPED_TRACE(path.string());
  Result<Image> whole = read_image(path);
  ASSERT_TRUE(whole.ok()) << whole.status().to_string();
  Result<std::unique_ptr<StripReader>> reader = open_strips(path);
  ASSERT_TRUE(reader.ok()) << reader.status().to_string();
  ASSERT_TRUE(*reader) << "not read in strips";
  EXPECT_TRUE(reads_in_strips(path));
  const Image& layout = (*reader)->layout();
  ASSERT_EQ(layout.num_components(), whole->num_components());
  EXPECT_EQ(layout.color_space, whole->color_space);
  EXPECT_EQ(layout.has_alpha, whole->has_alpha);
  const int n = layout.num_components();
  std::vector<int64_t> next(n, 0);
  std::vector<int32_t> rows;
  for (bool more = true; more;) {
    more = false;
    for (int c = 0; c < n; ++c) {
      const Component& want = whole->components[c];
      const Component& got = layout.components[c];
      ASSERT_EQ(got.width, want.width);
      ASSERT_EQ(got.height, want.height);
      ASSERT_EQ(got.precision, want.precision);
      ASSERT_EQ(got.is_signed, want.is_signed);
      const int64_t k = std::min<int64_t>(3 + 4 * c, want.height - next[c]);
      if (k <= 0) continue;
      rows.assign(static_cast<size_t>(k * want.width), -1);
      const Status s = (*reader)->read_rows(c, k, rows.data());
      ASSERT_TRUE(s.ok()) << s.to_string();
      const auto from = want.samples.begin() + next[c] * want.width;
      ASSERT_TRUE(std::equal(rows.begin(), rows.end(), from)) << "component " << c << " rows from " << next[c];
      next[c] += k;
      more = true;
    }
  }
  // Past the end: an error, not a crash.
  int32_t one = 0;
  EXPECT_FALSE((*reader)->read_rows(0, 1, &one).ok());
}

// The same through read_together (PNM and PAM): strips of 5 rows, each
// converted in two parts, the later part first.
void expect_together_match(const fs::path& path) {
  SCOPED_TRACE(path.string() + " read together");
  Result<Image> whole = read_image(path);
  ASSERT_TRUE(whole.ok()) << whole.status().to_string();
  Result<std::unique_ptr<StripReader>> reader = open_strips(path);
  ASSERT_TRUE(reader.ok() && *reader);
  ASSERT_TRUE((*reader)->reads_together());
  const int n = whole->num_components();
  const int64_t w = whole->components[0].width, h = whole->components[0].height;
  std::vector<std::vector<int32_t>> planes(n, std::vector<int32_t>(static_cast<size_t>(w * h), -1));
  for (int64_t y = 0; y < h; y += 5) {
    const int64_t rows = std::min<int64_t>(5, h - y);
    Result<StripReader::Conversion> convert = (*reader)->read_together(rows);
    ASSERT_TRUE(convert.ok()) << convert.status().to_string();
    for (const auto& [y0, y1] : {std::pair<int64_t, int64_t>{rows / 2, rows}, {0, rows / 2}}) {
      std::vector<int32_t*> out;
      for (auto& p : planes) out.push_back(p.data() + (y + y0) * w);
      const Status s = (*convert)(y0, y1, out.data());
      ASSERT_TRUE(s.ok()) << s.to_string();
    }
  }
  for (int c = 0; c < n; ++c) EXPECT_EQ(planes[c], whole->components[c].samples) << "component " << c;
  EXPECT_FALSE((*reader)->read_together(1).ok());  // past the end

  // At their stored width (read_together_stored): each sample's one or two
  // bytes in the host's order, the same values.
  Result<std::unique_ptr<StripReader>> stored = open_strips(path);
  ASSERT_TRUE(stored.ok() && *stored);
  ASSERT_TRUE((*stored)->reads_stored());
  const int bytes = whole->components[0].precision <= 8 ? 1 : 2;
  std::vector<std::vector<uint8_t>> narrow(n, std::vector<uint8_t>(static_cast<size_t>(w * h * bytes), 0xee));
  for (int64_t y = 0; y < h; y += 5) {
    const int64_t rows = std::min<int64_t>(5, h - y);
    Result<StripReader::StoredConversion> convert = (*stored)->read_together_stored(rows);
    ASSERT_TRUE(convert.ok()) << convert.status().to_string();
    for (const auto& [y0, y1] : {std::pair<int64_t, int64_t>{rows / 2, rows}, {0, rows / 2}}) {
      std::vector<uint8_t*> out;
      for (auto& p : narrow) out.push_back(p.data() + (y + y0) * w * bytes);
      const Status s = (*convert)(y0, y1, out.data());
      ASSERT_TRUE(s.ok()) << s.to_string();
    }
  }
  for (int c = 0; c < n; ++c) {
    std::vector<int32_t> widened(static_cast<size_t>(w * h));
    for (size_t i = 0; i < widened.size(); ++i) {
      uint16_t v = narrow[c][i * bytes];
      if (bytes == 2) std::memcpy(&v, narrow[c].data() + i * 2, 2);
      widened[i] = v;
    }
    EXPECT_EQ(widened, whole->components[c].samples) << "component " << c << " at its stored width";
  }
  EXPECT_FALSE((*stored)->read_together_stored(1).ok());  // past the end
}

void write_bytes(const fs::path& path, const std::string& head, const std::vector<uint8_t>& body) {
  std::ofstream out(path, std::ios::binary);
  out << head;
  out.write(reinterpret_cast<const char*>(body.data()), static_cast<std::streamsize>(body.size()));
}

TEST(StripReader, PgxMatchesTheWholeImageReader) {
  const fs::path dir = temp_dir();
  std::vector<uint8_t> body;
  for (int i = 0; i < 37 * 29; ++i) body.push_back(static_cast<uint8_t>(i * 7 + i / 37));
  write_bytes(dir / "u8.pgx", "PG ML + 8 37 29\n", body);
  body.clear();
  // 12-bit signed, little-endian: two bytes each, values in -2048..2047.
  for (int i = 0; i < 23 * 31; ++i) {
    const int16_t v = static_cast<int16_t>((i * 37) % 4096 - 2048);
    body.push_back(static_cast<uint8_t>(v & 0xFF));
    body.push_back(static_cast<uint8_t>((v >> 8) & 0xFF));
  }
  write_bytes(dir / "s12.pgx", "PG LM -12 23 31\n", body);
  expect_strips_match(dir / "u8.pgx");
  expect_strips_match(dir / "s12.pgx");
  fs::remove_all(dir);
}

TEST(StripReader, PgxErrorsAreTheWholeImageReadersErrors) {
  const fs::path dir = temp_dir();
  // A 4-bit sample of 16 in the last row; a file 5 bytes short.
  std::vector<uint8_t> body(20 * 10, 3);
  body.back() = 16;
  write_bytes(dir / "high.pgx", "PG ML + 4 20 10\n", body);
  body.resize(body.size() - 5);
  write_bytes(dir / "short.pgx", "PG ML + 4 20 10\n", body);
  Result<std::unique_ptr<StripReader>> high = open_strips(dir / "high.pgx");
  ASSERT_TRUE(high.ok() && *high);
  std::vector<int32_t> rows(20 * 10);
  const Status s = (*high)->read_rows(0, 10, rows.data());
  EXPECT_EQ(s.to_string(), read_image(dir / "high.pgx").status().to_string());
  EXPECT_NE(s.to_string().find("sample 16 at index 199"), std::string::npos) << s.to_string();
  Result<std::unique_ptr<StripReader>> short_file = open_strips(dir / "short.pgx");
  ASSERT_FALSE(short_file.ok());
  EXPECT_EQ(short_file.status().to_string(), read_image(dir / "short.pgx").status().to_string());
  fs::remove_all(dir);
}

// PAM (P7): any depth, one or two bytes a sample, TUPLTYPE's colour and
// alpha; a header with comments.
TEST(StripReader, PamMatchesTheWholeImageReader) {
  const fs::path dir = temp_dir();
  struct Case {
    std::string name, header;
    int depth, bytes;
  };
  const std::vector<Case> cases = {
      {"rgba.pam", "P7\nWIDTH 31\nHEIGHT 23\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n", 4, 1},
      {"grey16.pam", "P7\n# a comment\nWIDTH 17\nHEIGHT 40\nDEPTH 1\nMAXVAL 4095\nTUPLTYPE GRAYSCALE\nENDHDR\n", 1, 2},
      {"five.pam", "P7\nWIDTH 9\nHEIGHT 13\nDEPTH 5\nMAXVAL 200\nENDHDR\n", 5, 1},
      {"ga.pam", "P7\nWIDTH 12\nHEIGHT 7\nDEPTH 2\nMAXVAL 255\nENDHDR\n", 2, 1},
  };
  for (const Case& c : cases) {
    const int w = std::stoi(c.header.substr(c.header.find("WIDTH ") + 6));
    const int h = std::stoi(c.header.substr(c.header.find("HEIGHT ") + 7));
    std::vector<uint8_t> body;
    for (int i = 0; i < w * h * c.depth; ++i) {
      const int v = (i * 13 + i / (w * c.depth) * 5) % (c.bytes == 1 ? 201 : 4096);
      if (c.bytes == 2) body.push_back(static_cast<uint8_t>(v >> 8));
      body.push_back(static_cast<uint8_t>(v));
    }
    write_bytes(dir / c.name, c.header, body);
    expect_strips_match(dir / c.name);
    expect_together_match(dir / c.name);
  }
  // P6, one and two bytes a sample.
  for (const int maxval : {255, 1000}) {
    std::vector<uint8_t> body;
    for (int i = 0; i < 23 * 17 * 3; ++i) {
      const int v = (i * 29 + i / 69) % (maxval + 1);
      if (maxval > 255) body.push_back(static_cast<uint8_t>(v >> 8));
      body.push_back(static_cast<uint8_t>(v));
    }
    const fs::path path = dir / ("rgb" + std::to_string(maxval) + ".ppm");
    write_bytes(path, "P6\n23 17\n" + std::to_string(maxval) + "\n", body);
    expect_together_match(path);
  }
  fs::remove_all(dir);
}

TEST(StripReader, PamErrorsAreTheWholeImageReadersErrors) {
  const fs::path dir = temp_dir();
  const std::string header = "P7\nWIDTH 20\nHEIGHT 10\nDEPTH 3\nMAXVAL 100\nENDHDR\n";
  std::vector<uint8_t> body(20 * 10 * 3, 7);
  body.back() = 101;
  write_bytes(dir / "high.pam", header, body);
  body.resize(body.size() - 5);
  write_bytes(dir / "short.pam", header, body);
  write_bytes(dir / "bad.pam", "P7\nWIDTH 20\nHEIGHT 10\nDEPTH 3\nENDHDR\n", body);
  Result<std::unique_ptr<StripReader>> high = open_strips(dir / "high.pam");
  ASSERT_TRUE(high.ok() && *high);
  std::vector<int32_t> rows(20 * 10);
  Status s;
  for (int c = 0; c < 3 && s.ok(); ++c) s = (*high)->read_rows(c, 10, rows.data());
  EXPECT_EQ(s.to_string(), read_image(dir / "high.pam").status().to_string());
  // Read together: the conversion of the rows that hold it says the same.
  Result<std::unique_ptr<StripReader>> together = open_strips(dir / "high.pam");
  ASSERT_TRUE(together.ok() && *together);
  Result<StripReader::Conversion> convert = (*together)->read_together(10);
  ASSERT_TRUE(convert.ok());
  std::vector<int32_t> planes(20 * 10 * 3);
  int32_t* out[3] = {planes.data(), planes.data() + 200, planes.data() + 400};
  EXPECT_TRUE((*convert)(0, 9, out).ok());
  EXPECT_EQ((*convert)(9, 10, out).to_string(), read_image(dir / "high.pam").status().to_string());
  // And at the stored width.
  Result<std::unique_ptr<StripReader>> stored = open_strips(dir / "high.pam");
  ASSERT_TRUE(stored.ok() && *stored);
  Result<StripReader::StoredConversion> narrow = (*stored)->read_together_stored(10);
  ASSERT_TRUE(narrow.ok());
  std::vector<uint8_t> bytes(20 * 10 * 3);
  uint8_t* to[3] = {bytes.data(), bytes.data() + 200, bytes.data() + 400};
  EXPECT_TRUE((*narrow)(0, 9, to).ok());
  EXPECT_EQ((*narrow)(9, 10, to).to_string(), read_image(dir / "high.pam").status().to_string());
  for (const char* name : {"short.pam", "bad.pam"}) {
    Result<std::unique_ptr<StripReader>> r = open_strips(dir / name);
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_EQ(r.status().to_string(), read_image(dir / name).status().to_string());
  }
  fs::remove_all(dir);
}

#ifdef MALLAT_HAVE_TIFF
TEST(StripReader, TiffMatchesTheWholeImageReader) {
  for (const fs::path& f : fs::directory_iterator(testing::image_path("")))
    if (f.extension() == ".tif") expect_strips_match(f);
  const fs::path dir = temp_dir();
  for (const auto& [name, shape] : testing::test_tiff_shapes()) {
    ASSERT_TRUE(testing::write_test_tiff(dir / name, shape)) << name;
    expect_strips_match(dir / name);
  }
  fs::remove_all(dir);
}

TEST(StripReader, TiffErrorsAreTheWholeImageReadersErrors) {
  const fs::path dir = temp_dir();
  ASSERT_TRUE(testing::write_test_tiff(dir / "t.tif", testing::test_tiff_shapes()[0].second));
  // A photometric interpretation this reader does not take (5, CMYK).
  fs::copy_file(dir / "t.tif", dir / "grey.tif");
  TIFF* tif = TIFFOpen((dir / "grey.tif").c_str(), "r+");
  ASSERT_TRUE(tif);
  TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_SEPARATED);
  TIFFRewriteDirectory(tif);
  TIFFClose(tif);
  Result<std::unique_ptr<StripReader>> r = open_strips(dir / "grey.tif");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().to_string(), read_image(dir / "grey.tif").status().to_string());
  EXPECT_NE(r.status().to_string().find("photometric interpretation 5"), std::string::npos) << r.status().to_string();
  fs::remove_all(dir);
}
#endif

}  // namespace
}  // namespace mallat::io
