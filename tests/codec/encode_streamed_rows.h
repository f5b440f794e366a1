// What the streamed encoder's tests share (encode_streamed_test.cc,
// encode_streamed_tiles_test.cc): test images, an Image as a RowSource, the
// streamed file gathered from its pieces, and the check that it is
// encode()'s file byte for byte.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <string>
#include <vector>

#include "codec/api/encode.h"
#include "codec/api/encode_streamed.h"
#include "common/image.h"

namespace mallat::codec {
namespace {

// An image whose blocks are neither flat nor noise: ramps, a ripple and a
// little noise, each component its own. Components sub-sampled by
// `chroma_step` take their B-2 size for an image area at (x0, y0).
Image test_image(int64_t w, int64_t h, int components, int precision, bool is_signed, uint32_t seed,
                 int chroma_step = 1, int64_t x0 = 0, int64_t y0 = 0) {
  Image image;
  image.x1 = w;
  image.y1 = h;
  std::mt19937 rng(seed);
  for (int c = 0; c < components; ++c) {
    Component comp;
    comp.dx = comp.dy = c == 0 ? 1 : chroma_step;
    comp.width = (x0 + w + comp.dx - 1) / comp.dx - (x0 + comp.dx - 1) / comp.dx;
    comp.height = (y0 + h + comp.dy - 1) / comp.dy - (y0 + comp.dy - 1) / comp.dy;
    comp.precision = precision;
    comp.is_signed = is_signed;
    const int64_t span = int64_t{comp.max_value()} - comp.min_value() + 1;
    for (int64_t y = 0; y < comp.height; ++y)
      for (int64_t x = 0; x < comp.width; ++x) {
        const int64_t v = (x * (3 + c) + y * 5 + ((x * y) >> 4) + static_cast<int64_t>(rng() % 7)) * (span / 256 + 1);
        comp.samples.push_back(static_cast<int32_t>(comp.min_value() + v % span));
      }
    image.components.push_back(std::move(comp));
  }
  image.color_space = components >= 3 ? ColorSpace::kRgb : ColorSpace::kGray;
  return image;
}

// The image as a RowSource: its layout and its rows, top to bottom; with
// `together`, every component's rows read together as well
// (RowSource::read_together), its conversions counted.
struct ImageRows {
  const Image& image;
  std::vector<int64_t> next;
  bool together = false;
  int64_t next_together = 0;
  std::atomic<int64_t> conversions = 0;
  RowSource source() {
    RowSource s;
    s.layout = image;
    for (Component& c : s.layout.components) c.samples.clear();
    next.assign(image.components.size(), 0);
    s.read_rows = [this](int c, int64_t rows, int32_t* out) -> Status {
      const Component& comp = image.components[c];
      if (next[c] + rows > comp.height) return invalid_argument("rows beyond the image");
      std::copy_n(comp.samples.data() + next[c] * comp.width, rows * comp.width, out);
      next[c] += rows;
      return Status::Ok();
    };
    if (together)
      s.read_together = [this](int64_t rows) -> Result<RowConversion> {
        const int64_t first = next_together;
        if (first + rows > image.components[0].height) return invalid_argument("rows beyond the image");
        next_together += rows;
        return RowConversion([this, first, rows](int64_t y0, int64_t y1, int32_t* const* out) -> Status {
          if (y0 < 0 || y1 > rows || y0 > y1) return invalid_argument("rows converted beyond those read");
          for (size_t c = 0; c < image.components.size(); ++c) {
            const Component& comp = image.components[c];
            std::copy_n(comp.samples.data() + (first + y0) * comp.width, (y1 - y0) * comp.width, out[c]);
          }
          ++conversions;
          return Status::Ok();
        });
      };
    return s;
  }
};

Result<std::vector<uint8_t>> streamed(const Image& image, const EncodeOptions& o, EncodeReport* report = nullptr,
                                      bool together = false) {
  ImageRows rows{image, {}, together};
  std::vector<uint8_t> file;
  size_t pieces = 0;
  const FileSink sink = [&](std::span<const uint8_t> piece) {
    file.insert(file.end(), piece.begin(), piece.end());
    ++pieces;
    return Status::Ok();
  };
  // The file's size, told once before its first byte.
  int hints = 0;
  uint64_t told = 0;
  const FileSizeHint size = [&](uint64_t bytes) {
    EXPECT_TRUE(file.empty());
    ++hints;
    told = bytes;
  };
  MALLAT_RETURN_IF_ERROR(encode_streamed(rows.source(), o, sink, report, &size));
  EXPECT_GT(pieces, 2u);  // headers and data apart, not one copy of the file
  EXPECT_EQ(hints, 1);
  EXPECT_EQ(told, file.size());
  if (together) {
    EXPECT_GT(rows.conversions.load(), 0);
  }
  return file;
}

[[maybe_unused]] void expect_same(const Image& image, const EncodeOptions& o, const std::string& what) {
  auto whole = encode(image, o);
  ASSERT_TRUE(whole.ok()) << what << ": " << whole.status().message();
  ASSERT_EQ(why_not_streamed(image, o), "") << what;
  auto lines = streamed(image, o);
  ASSERT_TRUE(lines.ok()) << what << ": " << lines.status().message();
  EXPECT_TRUE(*whole == *lines) << what << ": " << whole->size() << " bytes whole, " << lines->size() << " streamed";
}

[[maybe_unused]] EncodeOptions options(int resolutions = 6) {
  EncodeOptions o;
  o.resolutions = resolutions;
  o.threads = 2;
  return o;
}

}  // namespace
}  // namespace mallat::codec
