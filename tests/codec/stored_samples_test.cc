// The samples as stored on the way to the device (codec/stages/stored_samples.h):
// every sample in range of its precision, signed or not, comes back from
// its 1, 2 or 4 bytes as it was, rows read at a pitch; a sample out of
// range is reported, so the device runner sends the int32 samples instead.
#include "codec/stages/stored_samples.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <vector>

namespace mallat::codec {
namespace {

TEST(StoredSamples, BytesByPrecision) {
  EXPECT_EQ(stored_bytes(1), 1);
  EXPECT_EQ(stored_bytes(8), 1);
  EXPECT_EQ(stored_bytes(9), 2);
  EXPECT_EQ(stored_bytes(16), 2);
  EXPECT_EQ(stored_bytes(17), 4);
  EXPECT_EQ(stored_bytes(31), 4);
}

// Random samples over the whole range of each precision, its two ends
// included, in rows of 13 read from rows of 20.
TEST(StoredSamples, EverySampleInRangeComesBack) {
  std::mt19937 rng(3);
  for (int precision : {1, 5, 8, 9, 12, 16, 17, 24}) {
    for (bool is_signed : {false, true}) {
      const int64_t lo = is_signed ? -(int64_t{1} << (precision - 1)) : 0;
      const int64_t hi = is_signed ? (int64_t{1} << (precision - 1)) - 1 : (int64_t{1} << precision) - 1;
      constexpr int64_t kWidth = 13, kRows = 7, kPitch = 20;
      std::vector<int32_t> image(kPitch * kRows, 0x7fffffff);  // the padding is never read
      for (int64_t y = 0; y < kRows; ++y) {
        for (int64_t x = 0; x < kWidth; ++x)
          image[y * kPitch + x] = static_cast<int32_t>(lo + static_cast<int64_t>(rng() % (hi - lo + 1)));
      }
      image[0] = static_cast<int32_t>(lo);
      image[1] = static_cast<int32_t>(hi);
      std::vector<std::byte> stored(kWidth * kRows * stored_bytes(precision));
      ASSERT_TRUE(narrow_rows(image.data(), kPitch, kWidth, kRows, precision, is_signed, stored.data()))
          << precision << (is_signed ? " signed" : "");
      std::vector<int32_t> back(kWidth * kRows);
      widen_on_host(stored.data(), kWidth * kRows, precision, is_signed, back.data());
      for (int64_t y = 0; y < kRows; ++y) {
        for (int64_t x = 0; x < kWidth; ++x)
          ASSERT_EQ(back[y * kWidth + x], image[y * kPitch + x]) << precision << " bits at " << x << "," << y;
      }
    }
  }
}

TEST(StoredSamples, ASampleOutOfRangeIsReported) {
  const std::vector<int32_t> over{0, 255, 256}, under{0, -1}, signed_over{-128, 127, 128}, signed_under{-129};
  std::vector<std::byte> to(16);
  EXPECT_FALSE(narrow_rows(over.data(), 3, 3, 1, 8, false, to.data()));
  EXPECT_TRUE(narrow_rows(over.data(), 2, 2, 1, 8, false, to.data()));
  EXPECT_FALSE(narrow_rows(under.data(), 2, 2, 1, 8, false, to.data()));
  EXPECT_FALSE(narrow_rows(signed_over.data(), 3, 3, 1, 8, true, to.data()));
  EXPECT_FALSE(narrow_rows(signed_under.data(), 1, 1, 1, 8, true, to.data()));
  EXPECT_FALSE(narrow_rows(over.data(), 3, 3, 1, 5, false, to.data()));  // 31 is a 5-bit sample's largest
  const std::vector<int32_t> wide{70000, -5};
  EXPECT_FALSE(narrow_rows(wide.data(), 2, 2, 1, 16, false, to.data()));
}

// A raster row from one-byte planes: each pixel's components in turn, for
// RGB (its own loop) and other counts.
TEST(StoredSamples, InterleavedRowsTakeEachPixelsComponentsInTurn) {
  for (const int n : {1, 2, 3, 4}) {
    const int64_t width = 37;
    std::vector<std::vector<uint8_t>> planes(static_cast<size_t>(n));
    std::vector<const uint8_t*> rows;
    for (int c = 0; c < n; ++c) {
      for (int64_t x = 0; x < width; ++x) planes[c].push_back(static_cast<uint8_t>(x * 7 + c * 50));
      rows.push_back(planes[c].data());
    }
    std::vector<uint8_t> row(static_cast<size_t>(width * n + 1), 0xAB);
    interleave_row(rows.data(), n, width, row.data());
    for (int64_t x = 0; x < width; ++x)
      for (int c = 0; c < n; ++c) EXPECT_EQ(row[x * n + c], planes[c][x]) << n << " components, x " << x;
    EXPECT_EQ(row.back(), 0xAB) << "nothing past the row";
  }
}

}  // namespace
}  // namespace mallat::codec
