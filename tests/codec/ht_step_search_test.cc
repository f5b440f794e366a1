// HT rate control's search over base step sizes (codec/encoder/step_search.h,
// EncodeOptions::step_search): the file kept is the one of the scales tried
// with the smallest measured error (a size target) or the fewest bytes (a
// PSNR target), each target still met; what cannot apply is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "codec/api/encode_streamed.h"
#include "codec/codec.h"
#include "common/metrics.h"
#include "tests/interop/generated.h"

namespace mallat::codec {
namespace {

EncodeOptions ht_options(EncodeOptions::RateKind kind, double value) {
  EncodeOptions o;
  o.style.ht = true;
  o.reversible = false;
  o.rate_kind = kind;
  o.rate_values = {value};
  return o;
}

double mse_of(const Image& image, const std::vector<uint8_t>& file) {
  auto decoded = decode(file, {}, nullptr);
  EXPECT_TRUE(decoded.ok()) << decoded.status().to_string();
  if (!decoded.ok()) return INFINITY;
  auto cmp = compare_images(image, *decoded);
  EXPECT_TRUE(cmp.ok());
  return cmp.ok() ? cmp->overall.mse : INFINITY;
}

// Under a size target the search's file is, byte for byte, the encode at
// one of its scales (1, 2^(1/3), 2^(2/3)), the one whose decode is closest
// to the image; it meets the target from below within 1%, as every scale
// does. The default rate mode under the search codes every plane.
TEST(HtStepSearch, SizeTargetKeepsTheScaleWithTheSmallestError) {
  const Image image = testing::generated_image(256, 192, 3, 8, false, 11);
  for (const double ratio : {12.0, 40.0}) {
    EncodeOptions o = ht_options(EncodeOptions::RateKind::kRatio, ratio);
    const double target = std::floor(256.0 * 192 * 3 / ratio);
    std::vector<std::vector<uint8_t>> each;
    std::vector<double> mse;
    for (int k = 0; k < 3; ++k) {
      EncodeOptions one = o;
      one.base_step_scale = std::exp2(k / 3.0);
      one.ht_rate = EncodeOptions::HtRate::kEveryPlane;
      auto bytes = encode(image, one);
      ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
      EXPECT_LE(bytes->size(), target) << ratio << " scale " << k;
      EXPECT_GE(bytes->size(), 0.99 * target) << ratio << " scale " << k;
      mse.push_back(mse_of(image, *bytes));
      each.push_back(std::move(bytes).value());
    }
    o.step_search = 3;
    auto searched = encode(image, o);
    ASSERT_TRUE(searched.ok()) << searched.status().to_string();
    size_t best = 0;
    for (size_t k = 1; k < mse.size(); ++k)
      if (mse[k] < mse[best]) best = k;
    EXPECT_EQ(*searched, each[best]) << ratio << ": expected the file of scale " << best;
    // The scales differ: the search has something to choose from.
    EXPECT_NE(each[0], each[1]) << ratio;
  }
}

// Under a PSNR target every scale meets it; the search keeps the smallest
// file, never larger than the encode without a search.
TEST(HtStepSearch, PsnrTargetKeepsTheSmallestFile) {
  const Image image = testing::generated_image(256, 192, 3, 8, false, 12);
  EncodeOptions o = ht_options(EncodeOptions::RateKind::kPsnr, 38.0);
  auto plain = encode(image, o);
  ASSERT_TRUE(plain.ok()) << plain.status().to_string();
  o.step_search = 2;
  auto searched = encode(image, o);
  ASSERT_TRUE(searched.ok()) << searched.status().to_string();
  EXPECT_LE(searched->size(), plain->size());
  EXPECT_NEAR(10.0 * std::log10(255.0 * 255.0 / mse_of(image, *searched)), 38.0, 0.05);
}

TEST(HtStepSearch, RefusesWhatItCannotSearch) {
  const Image image = testing::generated_image(64, 64, 1, 8, false, 13);
  struct Case {
    std::string name, message;
    void (*change)(EncodeOptions&);
  };
  const std::vector<Case> cases = {
      {"Part 1", "HT code-blocks", [](EncodeOptions& o) { o.style.ht = false; }},
      {"reversible", "irreversible", [](EncodeOptions& o) { o.reversible = true; }},
      {"no target", "rate target", [](EncodeOptions& o) { o.rate_kind = EncodeOptions::RateKind::kNone; }},
      {"17 steps", "1..16", [](EncodeOptions& o) { o.step_search = 17; }},
  };
  for (const Case& c : cases) {
    EncodeOptions o = ht_options(EncodeOptions::RateKind::kRatio, 20.0);
    o.step_search = 2;
    c.change(o);
    auto bytes = encode(image, o);
    ASSERT_FALSE(bytes.ok()) << c.name;
    EXPECT_NE(bytes.status().message().find(c.message), std::string::npos) << c.name << ": " << bytes.status().message();
  }
  // A streamed encode holds no whole image to compare each file with.
  EncodeOptions streamed = ht_options(EncodeOptions::RateKind::kRatio, 20.0);
  streamed.step_search = 2;
  EXPECT_NE(why_not_streamed(image, streamed).find("step search"), std::string::npos);
  EncodeOptions bad = ht_options(EncodeOptions::RateKind::kRatio, 20.0);
  bad.base_step_scale = 0;
  auto bytes = encode(image, bad);
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().message().find("base step scale"), std::string::npos) << bytes.status().message();
}

}  // namespace
}  // namespace mallat::codec
