// The PNM reader's one-pass path for 8-bit RGB (io/pnm.cc) against its
// plain per-channel loop (the same function asked for the largest byte,
// which keeps it on the plain path): the same planes for every pixel count
// around the vector widths, and the samples in their channels. And the
// writer's one-pass path (interleave_raster) against its per-channel loop:
// the same bytes and verdict, also with a sample out of range.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/image.h"

#include "io/formats.h"

namespace mallat::io {
namespace {

TEST(Deinterleave, RgbOnePassGivesThePerChannelPlanes) {
  std::mt19937 random(14);
  for (uint64_t pixels : {0, 1, 2, 3, 7, 15, 16, 17, 31, 33, 64, 100, 1001}) {
    std::vector<uint8_t> raster(3 * pixels);
    for (uint8_t& b : raster) b = static_cast<uint8_t>(random());
    std::vector<int32_t> fast(3 * pixels, -1), plain(3 * pixels, -2);
    int32_t* fast_planes[3] = {fast.data(), fast.data() + pixels, fast.data() + 2 * pixels};
    int32_t* plain_planes[3] = {plain.data(), plain.data() + pixels, plain.data() + 2 * pixels};
    detail::deinterleave_raster(raster.data(), pixels, 3, 1, fast_planes, false);
    detail::deinterleave_raster(raster.data(), pixels, 3, 1, plain_planes, true);
    EXPECT_EQ(fast, plain) << pixels << " pixels";
    for (uint64_t i = 0; i < pixels; ++i) {
      ASSERT_EQ(fast[i], raster[3 * i]) << "red of pixel " << i;
      ASSERT_EQ(fast[pixels + i], raster[3 * i + 1]) << "green of pixel " << i;
      ASSERT_EQ(fast[2 * pixels + i], raster[3 * i + 2]) << "blue of pixel " << i;
    }
  }
}

TEST(Interleave, RgbOnePassGivesThePerChannelBytes) {
  std::mt19937 random(41);
  for (int precision : {8, 5}) {
    for (int64_t width : {1, 3, 15, 16, 17, 31, 33, 100}) {
      for (int bad = -1; bad < 3; ++bad) {  // the component with a sample out of range, or none
        const int64_t height = 3;
        Image image = make_image(width, height, 3, precision, false).value();
        const int32_t top = (1 << precision) - 1;
        for (Component& c : image.components) {
          for (int32_t& v : c.samples) v = static_cast<int32_t>(random() % static_cast<uint32_t>(top + 1));
        }
        if (bad >= 0) {
          auto& samples = image.components[static_cast<size_t>(bad)].samples;
          samples[static_cast<size_t>(width) + random() % static_cast<size_t>(2 * width)] =
              random() % 2 ? top + 1 : -1;  // in the rows converted
        }
        // Rows 1..2 of 3: the rows asked for, not the image's start.
        std::vector<uint8_t> fast(static_cast<size_t>(6 * width), 0xAA), plain(fast.size(), 0x55);
        const bool fast_ok = detail::interleave_raster(image, 1, 3, fast.data());
        const bool plain_ok = detail::interleave_raster(image, 1, 3, plain.data(), /*per_channel=*/true);
        const std::string what = std::to_string(width) + " wide, precision " + std::to_string(precision) +
                                 ", bad component " + std::to_string(bad);
        EXPECT_EQ(fast_ok, bad < 0) << what;
        EXPECT_EQ(plain_ok, bad < 0) << what;
        if (bad < 0) {
          EXPECT_EQ(fast, plain) << what;
          for (int64_t i = 0; i < 2 * width; ++i) {
            for (int c = 0; c < 3; ++c) {
              ASSERT_EQ(fast[static_cast<size_t>(3 * i + c)], image.components[static_cast<size_t>(c)].samples[static_cast<size_t>(width + i)])
                  << what << " pixel " << i << " channel " << c;
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace mallat::io
