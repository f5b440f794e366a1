// Streamed decodes' sinks (codec/api/decode_streamed.h) for tests that
// compare their image with another decode's: the strips joined into one
// image (JoinedStrips), or the same checking their order and taking byte
// rows too (CheckedStrips).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "codec/api/decode_streamed.h"
#include "common/image.h"

namespace mallat::codec {

class JoinedStrips final : public RowSink {
 public:
  Status begin(const Image& header) override {
    image = header;
    return Status::Ok();
  }
  Status rows(Image strip, int64_t) override {
    for (size_t c = 0; c < strip.components.size(); ++c) {
      const std::vector<int32_t>& s = strip.components[c].samples;
      image.components[c].samples.insert(image.components[c].samples.end(), s.begin(), s.end());
    }
    return Status::Ok();
  }
  Image image;
};

// The strips joined into one image; with `bytes`, taking the rows as bytes
// where the decoder gives them so (turned back into samples here).
class CheckedStrips final : public RowSink {
 public:
  explicit CheckedStrips(bool bytes = false) : bytes_(bytes) {}
  bool takes_bytes() override { return bytes_; }
  Status byte_rows(std::vector<uint8_t> raster, int64_t rows, int64_t y0) override {
    EXPECT_EQ(y0, next_row);
    if (std::this_thread::get_id() != caller) ++strips_handed_beside;
    if (fail_at_strip >= 0 && byte_strips == fail_at_strip) return io_error("the sink stops at a strip");
    const size_t n = image.components.size();
    const auto width = static_cast<size_t>(image.components[0].width);
    EXPECT_EQ(raster.size(), width * n * static_cast<size_t>(rows));
    for (size_t i = 0; i < raster.size(); ++i) image.components[i % n].samples.push_back(raster[i]);
    next_row += rows;
    ++byte_strips;
    return Status::Ok();
  }
  Status begin(const Image& header) override {
    image = header;
    ++begins;
    return Status::Ok();
  }
  Status rows(Image strip, int64_t y0) override {
    EXPECT_EQ(y0, next_row);
    for (size_t c = 0; c < strip.components.size(); ++c) {
      const Component& s = strip.components[c];
      EXPECT_EQ(s.samples.size(), static_cast<size_t>(s.width * s.height));
      image.components[c].samples.insert(image.components[c].samples.end(), s.samples.begin(), s.samples.end());
    }
    next_row += strip.height();
    ++strips;
    return Status::Ok();
  }
  Image image;
  int begins = 0, strips = 0, byte_strips = 0;
  int64_t next_row = 0;
  int fail_at_strip = -1;  // byte_rows' error at this strip, if any
  const std::thread::id caller = std::this_thread::get_id();
  int strips_handed_beside = 0;  // byte strips given on a thread other than the caller's

 private:
  bool bytes_;
};

}  // namespace mallat::codec
