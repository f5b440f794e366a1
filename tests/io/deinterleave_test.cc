// The PNM reader's fast paths (io/pnm.cc: RGB and 16-bit grey, and RGB at
// the samples' stored width) against its plain per-channel loop: the same
// planes and largest sample for every pixel count around the vector widths,
// and the samples in their channels;
// the planes appended block by block equal the raster. And the
// writer's fast paths (interleave_raster) against its per-channel loop:
// the same bytes and verdict, also with a sample out of range.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "common/image.h"

#include "io/formats.h"

namespace mallat::io {
namespace {

// A deinterleave's fast paths (`split`: into planes of Element,
// `per_sample(bytes)` elements a sample) against its plain loop, for every
// pixel count around the vector widths: the same planes and largest sample,
// and each plane holding its channel (`sample(plane, i, bytes)`, the
// raster's value of its big-endian bytes).
template <typename Element, typename Split, typename PerSample, typename Sample>
void expect_fast_paths_give_the_plain_loops_planes(std::initializer_list<int> channel_counts, uint32_t seed,
                                                   Split split, PerSample per_sample, Sample sample) {
  std::mt19937 random(seed);
  for (int channels : channel_counts) {
    for (int bytes : {1, 2}) {
      for (uint64_t pixels : {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 100, 1001}) {
        std::vector<uint8_t> raster(pixels * channels * bytes);
        for (uint8_t& b : raster) b = static_cast<uint8_t>(random());
        const uint64_t plane = pixels * static_cast<uint64_t>(per_sample(bytes));
        std::vector<Element> fast(plane * channels, Element(1)), plain(plane * channels, Element(2));
        std::vector<Element*> fast_planes, plain_planes;
        for (int c = 0; c < channels; ++c) {
          fast_planes.push_back(fast.data() + c * plane);
          plain_planes.push_back(plain.data() + c * plane);
        }
        const std::string what = std::to_string(channels) + " channels of " + std::to_string(bytes) + " bytes, " +
                                 std::to_string(pixels) + " pixels";
        for (bool largest_of_bytes : {false, true}) {
          const int32_t fast_largest =
              split(raster.data(), pixels, channels, bytes, fast_planes.data(), largest_of_bytes, false);
          const int32_t plain_largest =
              split(raster.data(), pixels, channels, bytes, plain_planes.data(), largest_of_bytes, true);
          EXPECT_EQ(fast, plain) << what;
          if (bytes == 2 || largest_of_bytes) {
            EXPECT_EQ(fast_largest, plain_largest) << what;
          }
        }
        for (uint64_t i = 0; i < pixels; ++i) {
          for (int c = 0; c < channels; ++c) {
            const uint8_t* at = raster.data() + (i * channels + c) * bytes;
            ASSERT_EQ(sample(fast_planes[c], i, bytes), bytes == 1 ? at[0] : (at[0] << 8) | at[1])
                << what << ": channel " << c << " of pixel " << i;
          }
        }
      }
    }
  }
}

TEST(Deinterleave, FastPathsGiveThePlainLoopsPlanes) {
  expect_fast_paths_give_the_plain_loops_planes<int32_t>(
      {1, 3}, 14, detail::deinterleave_raster, [](int) { return 1; },
      [](const int32_t* plane, uint64_t i, int) { return plane[i]; });
}

// The same for the planes at the samples' stored width (Component::stored):
// one byte as in the raster, two as a host-order value.
TEST(Deinterleave, StoredFastPathGivesThePlainLoopsPlanes) {
  expect_fast_paths_give_the_plain_loops_planes<uint8_t>(
      {1, 3, 4}, 3, detail::split_stored, [](int bytes) { return bytes; },
      [](const uint8_t* plane, uint64_t i, int bytes) {
        if (bytes == 1) return static_cast<int>(plane[i]);
        uint16_t v = 0;
        std::memcpy(&v, plane + 2 * i, 2);
        return static_cast<int>(v);
      });
}

TEST(Deinterleave, AppendedPlanesAreTheImagesSamples) {
  std::mt19937 random(7);
  // More pixels than one block of the conversion, and not a multiple of it.
  const int64_t width = 97, height = 53;
  std::vector<uint8_t> raster(static_cast<size_t>(width * height * 3 * 2));
  for (uint8_t& b : raster) b = static_cast<uint8_t>(random());
  Image image = make_image_to_fill(width, height, 3, 16, false).value();
  const int32_t largest = detail::append_deinterleaved(raster.data(), width * height, 2, image, false);
  int32_t most = 0;
  for (int64_t i = 0; i < width * height; ++i) {
    for (int c = 0; c < 3; ++c) {
      const uint8_t* at = raster.data() + (i * 3 + c) * 2;
      ASSERT_EQ(image.components[c].samples.at(static_cast<size_t>(i)), (at[0] << 8) | at[1]) << i;
      most = std::max(most, (at[0] << 8) | at[1]);
    }
  }
  for (const Component& c : image.components) EXPECT_EQ(c.samples.size(), static_cast<size_t>(width * height));
  EXPECT_EQ(largest, most);
}

TEST(Interleave, FastPathsGiveThePerChannelBytes) {
  std::mt19937 random(41);
  for (int n : {3, 1}) {
    for (int precision : {8, 5, 16, 12}) {
      const int bytes = precision <= 8 ? 1 : 2;
      for (int64_t width : {1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 100}) {
        for (int bad = -1; bad < n; ++bad) {  // the component with a sample out of range, or none
          const int64_t height = 3;
          Image image = make_image(width, height, n, precision, false).value();
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
          std::vector<uint8_t> fast(static_cast<size_t>(2 * width * n * bytes), 0xAA), plain(fast.size(), 0x55);
          const bool fast_ok = detail::interleave_raster(image, 1, 3, fast.data());
          const bool plain_ok = detail::interleave_raster(image, 1, 3, plain.data(), /*per_channel=*/true);
          const std::string what = std::to_string(n) + " components " + std::to_string(width) + " wide, precision " +
                                   std::to_string(precision) + ", bad component " + std::to_string(bad);
          EXPECT_EQ(fast_ok, bad < 0) << what;
          EXPECT_EQ(plain_ok, bad < 0) << what;
          if (bad >= 0) continue;
          EXPECT_EQ(fast, plain) << what;
          for (int64_t i = 0; i < 2 * width; ++i) {
            for (int c = 0; c < n; ++c) {
              const int32_t v = image.components[static_cast<size_t>(c)].samples[static_cast<size_t>(width + i)];
              const uint8_t* at = fast.data() + (i * n + c) * bytes;
              ASSERT_EQ(bytes == 1 ? at[0] : (at[0] << 8) | at[1], v) << what << " pixel " << i << " channel " << c;
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace mallat::io
