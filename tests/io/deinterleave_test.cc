// The PNM reader's one-pass path for 8-bit RGB (io/pnm.cc) against its
// plain per-channel loop (the same function asked for the largest byte,
// which keeps it on the plain path): the same planes for every pixel count
// around the vector widths, and the samples in their channels.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

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

}  // namespace
}  // namespace mallat::io
