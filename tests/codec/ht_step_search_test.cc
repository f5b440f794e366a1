// HT rate control's search over base step sizes (codec/encoder/step_search.h,
// EncodeOptions::step_search): the file kept is the one of the steps tried
// with the smallest measured error (a size target) or the fewest bytes at
// the target's error (a PSNR target); what cannot apply is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "codec/api/encode_streamed.h"
#include "codec/codec.h"
#include "codec/codestream/codestream_reader.h"
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

// Under a size target the search's file is, byte for byte, the best encode
// of its steps: first the scales 1, 2^(1/3), 2^(2/3), the one whose decode
// is closest to the image; then each resolution's steps moved by 2^(+-1/4),
// then 2^(+-1/8), from the best so far, kept where the decode comes closer
// and the file fills the target to within 1%. Every file meets the target
// from below, the scales' within 1%. The default rate mode
// under the search codes every plane.
TEST(HtStepSearch, SizeTargetKeepsTheStepsWithTheSmallestError) {
  const Image image = testing::generated_image(256, 192, 3, 8, false, 11);
  for (const double ratio : {12.0, 40.0}) {
    EncodeOptions o = ht_options(EncodeOptions::RateKind::kRatio, ratio);
    const double target = std::floor(256.0 * 192 * 3 / ratio);
    std::vector<uint8_t> best;
    double best_mse = INFINITY;
    EncodeOptions best_options;
    std::vector<std::vector<uint8_t>> scales;
    const auto try_options = [&](const EncodeOptions& one, const std::string& what) {
      auto bytes = encode(image, one);
      EXPECT_TRUE(bytes.ok()) << bytes.status().to_string();
      if (!bytes.ok()) return false;
      EXPECT_LE(bytes->size(), target) << ratio << " " << what;
      // A moved step's file more than 1% under the target is not kept.
      if (!one.resolution_step_scales.empty() && bytes->size() < 0.99 * target) return false;
      EXPECT_GE(bytes->size(), 0.99 * target) << ratio << " " << what;
      const double mse = mse_of(image, *bytes);
      if (!(mse < best_mse)) return false;
      best = std::move(bytes).value();
      best_mse = mse;
      best_options = one;
      return true;
    };
    for (int k = 0; k < 3; ++k) {
      EncodeOptions one = o;
      one.base_step_scale = std::exp2(k / 3.0);
      one.ht_rate = EncodeOptions::HtRate::kEveryPlane;
      try_options(one, "scale " + std::to_string(k));
      scales.push_back(encode(image, one).value());
    }
    const double best_scale_mse = best_mse;
    // 256x192 takes the default 5 levels: 6 resolutions.
    for (const double octave : {0.25, 0.125}) {
      for (int r = 0; r < 6; ++r) {
        for (const double sign : {1.0, -1.0}) {
          EncodeOptions moved = best_options;
          moved.resolution_step_scales.resize(6, 1.0);
          moved.resolution_step_scales[static_cast<size_t>(r)] *= std::exp2(sign * octave);
          if (try_options(moved, "resolution " + std::to_string(r))) break;
        }
      }
    }
    o.step_search = 3;
    auto searched = encode(image, o);
    ASSERT_TRUE(searched.ok()) << searched.status().to_string();
    EXPECT_EQ(*searched, best) << ratio;
    EXPECT_GE(searched->size(), 0.99 * target) << ratio;
    EXPECT_LE(best_mse, best_scale_mse) << ratio;
    // The scales differ: the search has something to choose from.
    EXPECT_NE(scales[0], scales[1]) << ratio;
  }
}

// A resolution's step scale multiplies the steps of its subbands alone (the
// QCD's expounded steps, E.1.1); it needs expounded irreversible steps.
TEST(HtStepSearch, ResolutionStepScaleMovesItsSubbandsSteps) {
  const Image image = testing::generated_image(128, 128, 1, 8, false, 14);
  EncodeOptions o = ht_options(EncodeOptions::RateKind::kRatio, 20.0);
  o.resolutions = 3;
  auto plain = encode(image, o);
  ASSERT_TRUE(plain.ok()) << plain.status().to_string();
  o.resolution_step_scales = {1.0, 2.0};
  auto moved = encode(image, o);
  ASSERT_TRUE(moved.ok()) << moved.status().to_string();
  const auto steps_of = [](const std::vector<uint8_t>& file) {
    auto main = parse_main_header(file);
    EXPECT_TRUE(main.ok());
    return main.ok() ? main->qcd.steps : std::vector<StepSize>{};
  };
  const std::vector<StepSize> a = steps_of(*plain), b = steps_of(*moved);
  ASSERT_EQ(a.size(), 7u);
  ASSERT_EQ(b.size(), 7u);
  // LL (resolution 0) and resolution 2's HL, LH, HH as they were;
  // resolution 1's (subbands 1..3) one exponent lower, twice the step.
  for (size_t i : {0u, 4u, 5u, 6u}) {
    EXPECT_EQ(a[i].exponent, b[i].exponent) << i;
    EXPECT_EQ(a[i].mantissa, b[i].mantissa) << i;
  }
  for (size_t i : {1u, 2u, 3u}) {
    EXPECT_EQ(a[i].exponent - 1, b[i].exponent) << i;
    EXPECT_EQ(a[i].mantissa, b[i].mantissa) << i;
  }
  for (void (*change)(EncodeOptions&) : {+[](EncodeOptions& e) { e.derived_quantization = true; },
                                         +[](EncodeOptions& e) { e.reversible = true; }}) {
    EncodeOptions bad = o;
    change(bad);
    auto refused = encode(image, bad);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.status().message().find("expounded irreversible"), std::string::npos)
        << refused.status().message();
  }
  EncodeOptions zero = o;
  zero.resolution_step_scales = {0.0};
  EXPECT_FALSE(encode(image, zero).ok());
}

// Under a PSNR target the search's file is, byte for byte, the one of its
// base steps' files that is smallest at the target's error (each file's
// bytes times the square root of its error over the target's: 6 dB a
// doubling); no resolution's steps are moved. The first scale's file is
// the encode without a search.
TEST(HtStepSearch, PsnrTargetKeepsTheSmallestFileAtTheTarget) {
  const Image image = testing::generated_image(256, 192, 3, 8, false, 12);
  for (const double psnr : {30.0, 38.0}) {
    EncodeOptions o = ht_options(EncodeOptions::RateKind::kPsnr, psnr);
    auto plain = encode(image, o);
    ASSERT_TRUE(plain.ok()) << plain.status().to_string();
    const double target_mse = 255.0 * 255.0 / std::pow(10.0, psnr / 10.0);
    std::vector<uint8_t> best;
    double best_mse = INFINITY, best_at_target = INFINITY;
    for (int k = 0; k < 3; ++k) {
      EncodeOptions one = o;
      one.base_step_scale = std::exp2(k / 3.0);
      auto bytes = encode(image, one);
      ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
      if (k == 0) {
        EXPECT_EQ(*bytes, *plain) << psnr;
      }
      const double mse = mse_of(image, *bytes);
      const double at_target = static_cast<double>(bytes->size()) * std::sqrt(mse / target_mse);
      if (!(at_target < best_at_target || (at_target == best_at_target && mse < best_mse))) continue;
      best = std::move(bytes).value();
      best_mse = mse;
      best_at_target = at_target;
    }
    o.step_search = 3;
    auto searched = encode(image, o);
    ASSERT_TRUE(searched.ok()) << searched.status().to_string();
    EXPECT_EQ(*searched, best) << psnr;
    EXPECT_NEAR(10.0 * std::log10(255.0 * 255.0 / mse_of(image, *searched)), psnr, 0.05) << psnr;
  }
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
