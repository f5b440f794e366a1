// An image whose components hold their samples at their stored width
// (Component::stored, as a device batch reads them) encodes to the same
// bytes as the same image with int32 samples: the CPU tile stages widen its
// rows as they read them, and a PSNR target or a step search, which compare
// int32 samples, widens the image first. One and two bytes a sample, grey
// and RGB, 5/3 and 9/7, Part 1 and HT, whole and cut tiles.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "codec/api/encode.h"
#include "common/image.h"
#include "tests/codec/codec_test_util.h"
#include "tests/stored_image.h"

namespace mallat::codec {
namespace {

// Smooth samples with noise (so that rate control has work), int32.
Image stored_test_image(int64_t w, int64_t h, int n, int precision) {
  Image image = make_image(w, h, n, precision, false).value();
  std::mt19937 random(static_cast<uint32_t>(w * 31 + n * 7 + precision));
  const int32_t most = (1 << precision) - 1;
  for (int c = 0; c < n; ++c) {
    for (int64_t y = 0; y < h; ++y) {
      for (int64_t x = 0; x < w; ++x) {
        const int32_t v = static_cast<int32_t>((x * 5 + y * 3 + c * 40) % (most + 1)) +
                          static_cast<int32_t>(random() % 9) - 4;
        image.components[c].samples[y * w + x] = std::clamp(v, 0, most);
      }
    }
  }
  image.color_space = n >= 3 ? ColorSpace::kRgb : ColorSpace::kGray;
  return image;
}

TEST(EncodeStored, StoredSamplesGiveTheInt32SamplesBytes) {
  struct Case {
    std::string name;
    int components, precision;
    EncodeOptions options;
  };
  std::vector<Case> cases;
  for (int n : {1, 3}) {
    for (int precision : {8, 12}) {
      const std::string what = std::to_string(n) + " components of " + std::to_string(precision) + " bits, ";
      EncodeOptions lossless;
      cases.push_back({what + "5/3", n, precision, lossless});
      cases.push_back({what + "cut tiles, 5/3", n, precision, testing::cut_tiles(true)});
      cases.push_back({what + "cut tiles, 9/7 at 20:1", n, precision, testing::cut_tiles(false)});
      EncodeOptions ht;
      ht.style.ht = true;
      cases.push_back({what + "HT", n, precision, ht});
      EncodeOptions psnr;
      psnr.reversible = false;
      psnr.rate_kind = EncodeOptions::RateKind::kPsnr;
      psnr.rate_values = {36};
      cases.push_back({what + "9/7 at 36 dB", n, precision, psnr});
      EncodeOptions search = ht;
      search.reversible = false;
      search.rate_kind = EncodeOptions::RateKind::kBitsPerPixel;
      search.rate_values = {1};
      search.step_search = 2;
      cases.push_back({what + "HT 9/7 at 1 bpp, step search", n, precision, search});
    }
  }
  for (const Case& k : cases) {
    const Image ints = stored_test_image(150, 70, k.components, k.precision);
    const Image stored = mallat::testing::as_stored(ints);
    ASSERT_TRUE(has_stored_samples(stored));
    Result<std::vector<uint8_t>> a = encode(ints, k.options);
    Result<std::vector<uint8_t>> b = encode(stored, k.options);
    ASSERT_TRUE(a.ok()) << k.name << ": " << a.status().message();
    ASSERT_TRUE(b.ok()) << k.name << ": " << b.status().message();
    EXPECT_EQ(*a, *b) << k.name;
  }
}

TEST(EncodeStored, StoredSamplesOfTheWrongCountAreRefused) {
  Image stored = mallat::testing::as_stored(stored_test_image(40, 30, 3, 8));
  stored.components[1].stored.pop_back();
  const Result<std::vector<uint8_t>> bytes = encode(stored, EncodeOptions{});
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().message().find("component 1 has the wrong number of samples"), std::string::npos)
      << bytes.status().message();
}

}  // namespace
}  // namespace mallat::codec
