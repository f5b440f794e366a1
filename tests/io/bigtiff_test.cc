// BigTIFF output (version 43, 8-byte offsets): what the writer chooses for a
// file past 4 GiB, forced here on small images so the test stays fast. libtiff
// (through decode_tiff) must read every sample back, from one strip or many.
#include <gtest/gtest.h>

#include "io/bits.h"
#include "io/formats.h"
#include "tests/io/io_test_util.h"

namespace mallat::io {
namespace {

using testing::random_image;

uint64_t load_le64(const uint8_t* p) { return load_le32(p) | static_cast<uint64_t>(load_le32(p + 4)) << 32; }

TEST(BigTiff, HeaderAndStripsOfAboutOneMebibyte) {
  // 700 x 900 RGB 8-bit: 2100-byte rows, 499 rows a strip, 2 strips.
  const Image image = random_image(700, 900, 3, 8, false, 91);
  Result<std::vector<uint8_t>> big = detail::encode_tiff(image, detail::TiffForm::kBig);
  ASSERT_TRUE(big.ok()) << big.status().to_string();
  const std::vector<uint8_t>& f = *big;
  EXPECT_EQ(f[0], 'I');
  EXPECT_EQ(load_le16(&f[2]), 43u);
  EXPECT_EQ(load_le16(&f[4]), 8u);
  const uint64_t ifd = load_le64(&f[8]);
  ASSERT_LT(ifd + 8, f.size());
  const uint64_t entries = load_le64(&f[ifd]);
  bool saw_rows_per_strip = false, saw_offsets = false;
  for (uint64_t i = 0; i < entries; ++i) {
    const uint8_t* e = &f[ifd + 8 + 20 * i];
    if (load_le16(e) == 278) {
      saw_rows_per_strip = true;
      EXPECT_EQ(load_le32(e + 12), (1u << 20) / 2100);
    }
    if (load_le16(e) == 273) {
      saw_offsets = true;
      EXPECT_EQ(load_le16(e + 2), 16u);  // LONG8
      EXPECT_EQ(load_le64(e + 4), 2u);   // two strips
    }
  }
  EXPECT_TRUE(saw_rows_per_strip);
  EXPECT_TRUE(saw_offsets);
#ifdef MALLAT_HAVE_TIFF
  Result<Image> back = detail::decode_tiff(f, uint64_t{1} << 30);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  for (int c = 0; c < 3; ++c) EXPECT_EQ(back->components[c].samples, image.components[c].samples);
#endif
}

#ifdef MALLAT_HAVE_TIFF
TEST(BigTiff, EveryLayoutReadsBack) {
  // 16-bit (byte-swapped rows), odd widths (packed rows), alpha, and an ICC
  // profile (a value out of line).
  for (int n = 1; n <= 4; ++n)
    for (int bits : {1, 12, 16}) {
      Image image = random_image(37, 23, n, bits, false, static_cast<uint32_t>(700 + n * bits));
      if (n == 3) image.icc_profile.assign(200, 7);
      Result<std::vector<uint8_t>> big = detail::encode_tiff(image, detail::TiffForm::kBig);
      ASSERT_TRUE(big.ok()) << big.status().to_string();
      Result<Image> back = detail::decode_tiff(*big, uint64_t{1} << 30);
      ASSERT_TRUE(back.ok()) << n << " " << bits << ": " << back.status().to_string();
      for (int c = 0; c < n; ++c) EXPECT_EQ(back->components[c].samples, image.components[c].samples);
      EXPECT_EQ(back->icc_profile, image.icc_profile);
    }
}
#endif

TEST(BigTiff, AutoStaysClassicWhenOffsetsFit) {
  const Image image = random_image(5, 3, 1, 8, false, 3);
  Result<std::vector<uint8_t>> f = detail::encode_tiff(image);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(load_le16(&(*f)[2]), 42u);
}

}  // namespace
}  // namespace mallat::io
