// Part 1 rate control by estimates with pass limits (codec/encoder/
// part1_rate.h) against coding every pass (EncodeOptions::
// part1_pass_limits false): the same file, byte for byte, whole and
// streamed, for low-rate size targets on both paths, several layers, mode
// switches, tiles, small code-blocks and a region of interest; the report
// says blocks were cut; and what leaves pass limits off.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codec/api/encode.h"
#include "codec/encoder/part1_rate.h"
#include "io/image_io.h"
#include "tests/codec/encode_streamed_rows.h"
#include "tests/entropy/textured_image.h"
#include "tests/testdata.h"

namespace mallat::codec {
namespace {

// A size target and what the trace calls it.
struct TargetCase {
  EncodeOptions options;
  std::string label;
};

// Ratios on both paths with options beside them, bits per pixel and a file
// limit, each low enough for pass limits (kPart1EstimatedMostShare).
std::vector<TargetCase> cases() {
  std::vector<TargetCase> out;
  auto ratio = [&](const std::string& label, bool reversible, std::vector<double> ratios) -> EncodeOptions& {
    out.push_back({{}, label});
    EncodeOptions& o = out.back().options;
    o.reversible = reversible;
    o.rate_kind = EncodeOptions::RateKind::kRatio;
    o.rate_values = std::move(ratios);
    return o;
  };
  ratio("9/7 at 40:1", false, {40});
  ratio("9/7 at 80:1", false, {80});
  ratio("5/3 at 40:1", true, {40});
  ratio("9/7, three layers", false, {160, 80, 40});
  ratio("9/7, every mode switch", false, {40}).style = entropy::CodeBlockStyle::from_byte(0x3F);
  ratio("9/7, segmentation symbols and vertically causal", false, {48}).style =
      entropy::CodeBlockStyle::from_byte(0x28);
  EncodeOptions& tiles = ratio("9/7, tiles of 96x80", false, {50});
  tiles.tile_width = 96;
  tiles.tile_height = 80;
  EncodeOptions& small = ratio("5/3, 16x16 code-blocks", true, {40});
  small.xcb = small.ycb = 4;
  ratio("9/7, a region of interest", false, {40}).roi.push_back({0, 6});
  TargetCase bpp{{}, "9/7 at 0.5 bpp"};
  bpp.options.reversible = false;
  bpp.options.rate_kind = EncodeOptions::RateKind::kBitsPerPixel;
  bpp.options.rate_values = {0.5};
  out.push_back(bpp);
  TargetCase limit{{}, "5/3 under a file limit"};
  limit.options.max_file_bytes = 1200;
  out.push_back(limit);
  return out;
}

void expect_same_files(const Image& image, const std::string& what) {
  size_t cutting = 0;
  const std::vector<TargetCase> all = cases();
  for (const TargetCase& c : all) {
    SCOPED_TRACE(what + ", " + c.label);
    EncodeOptions every = c.options;
    every.part1_pass_limits = false;
    EncodeReport limited_report, every_report;
    auto limited = encode(image, c.options, &limited_report);
    auto whole = encode(image, every, &every_report);
    ASSERT_TRUE(limited.ok()) << limited.status().message();
    ASSERT_TRUE(whole.ok()) << whole.status().message();
    EXPECT_EQ(*limited, *whole);
    cutting += limited_report.limited_blocks > 0 ? 1 : 0;
    EXPECT_EQ(every_report.limited_blocks, 0u);
    // The streamed encode keeps the indices in its store meanwhile.
    EncodeReport streamed_report;
    auto rows = streamed(image, c.options, &streamed_report);
    ASSERT_TRUE(rows.ok()) << rows.status().message();
    EXPECT_EQ(*rows, *whole);
    EXPECT_EQ(streamed_report.limited_blocks, limited_report.limited_blocks);
  }
  EXPECT_GT(2 * cutting, all.size()) << what;
}

TEST(Part1Rate, PassLimitsGiveTheFileEveryPassGives) {
  expect_same_files(testing::textured_image(300, 220, 3), "textured RGB");
}

TEST(Part1Rate, PassLimitsGiveTheFileEveryPassGivesOnDeepGrey) {
  expect_same_files(test_image(200, 150, 1, 12, false, 7), "12-bit grey");
}

TEST(Part1Rate, PassLimitsGiveTheFileEveryPassGivesOnPhotos) {
  MALLAT_REQUIRE_TESTDATA("images/Bretagne1.ppm");
  for (const char* name : {"images/Bretagne1.ppm", "images/Cevennes2.ppm"}) {
    auto image = io::read_image(testing::testdata_dir() / name);
    ASSERT_TRUE(image.ok()) << image.status().message();
    expect_same_files(*image, name);
  }
}

TEST(Part1Rate, HigherRatesCodeEveryPass) {
  // At 20:1 most of a photograph's passes are sent: no limits
  // (kPart1EstimatedMostShare).
  const Image image = testing::textured_image(300, 220, 3);
  EncodeOptions o;
  o.reversible = false;
  o.rate_kind = EncodeOptions::RateKind::kRatio;
  o.rate_values = {20};
  EncodeReport report;
  ASSERT_TRUE(encode(image, o, &report).ok());
  EXPECT_EQ(report.limited_blocks, 0u);
  o.rate_values = {40};
  ASSERT_TRUE(encode(image, o, &report).ok());
  EXPECT_GT(report.limited_blocks, 0u);
  EXPECT_TRUE(part1_limits_pay(1000, image));
  EXPECT_FALSE(part1_limits_pay(300 * 220 * 3 / 20, image));
}

TEST(Part1Rate, OnlySizeTargetsOnTheCpuTakeLimits) {
  EncodeOptions o;
  o.rate_kind = EncodeOptions::RateKind::kRatio;
  o.rate_values = {20};
  EXPECT_TRUE(part1_rate_by_estimates(o));
  EncodeOptions off = o;
  off.part1_pass_limits = false;
  EXPECT_FALSE(part1_rate_by_estimates(off));
  EncodeOptions psnr = o;
  psnr.rate_kind = EncodeOptions::RateKind::kPsnr;
  psnr.rate_values = {40};
  EXPECT_FALSE(part1_rate_by_estimates(psnr));
  EncodeOptions caps = o;
  caps.max_component_bytes = 100000;
  EXPECT_FALSE(part1_rate_by_estimates(caps));
  EncodeOptions search = o;
  search.step_search = 4;
  EXPECT_FALSE(part1_rate_by_estimates(search));
  EncodeOptions ht = o;
  ht.style.ht = true;
  EXPECT_FALSE(part1_rate_by_estimates(ht));
  EXPECT_FALSE(part1_rate_by_estimates(EncodeOptions{}));
  // A pass limit: down to the chosen plane's cleanup and two planes more,
  // every pass (0) where that is all.
  EXPECT_EQ(part1_pass_limit(10, 9), 1 + kPassLimitMargin);
  EXPECT_EQ(part1_pass_limit(10, 5), 1 + 3 * 4 + kPassLimitMargin);
  EXPECT_EQ(part1_pass_limit(10, -1), kPassLimitMargin);
  EXPECT_EQ(part1_pass_limit(10, 1), 0);
  EXPECT_EQ(part1_pass_limit(0, -1), 0);
}

}  // namespace
}  // namespace mallat::codec
