// The lossy encoder: file-size targets per layer, the main header it writes
// for the irreversible path, and the same bytes for any thread count.
#include <gtest/gtest.h>

#include <cmath>

#include "codec/codec.h"
#include "codec/jp2/jp2_boxes.h"
#include "codec/codestream/codestream_reader.h"
#include "tests/interop/generated.h"

namespace mallat::codec {
namespace {

using Kind = EncodeOptions::RateKind;

EncodeOptions lossy(Kind kind, std::vector<double> values) {
  EncodeOptions o;
  o.reversible = false;
  o.rate_kind = kind;
  o.rate_values = std::move(values);
  return o;
}

TEST(EncoderRate, BitsPerPixelTargetsEachLayer) {
  const Image image = testing::generated_image(300, 200, 3, 8, false, 5);
  for (double bpp : {0.25, 1.0, 2.0}) {
    auto bytes = encode(image, lossy(Kind::kBitsPerPixel, {bpp}));
    ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
    const double target = std::floor(bpp * 300 * 200 / 8);
    EXPECT_LE(bytes->size(), target) << bpp;
    EXPECT_GE(bytes->size(), 0.99 * target) << bpp;
  }
}

TEST(EncoderRate, RatioAsOpenJpegAndLayersInTheHeader) {
  const Image image = testing::generated_image(256, 256, 3, 8, false, 6);
  EncodeOptions o = lossy(Kind::kRatio, {40, 20, 10});
  o.container = Container::kJp2;
  auto bytes = encode(image, o);
  ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
  // -r 10: at most 1/10 of 256 x 256 x 3 bytes, the JP2 boxes included.
  EXPECT_LE(bytes->size(), 256u * 256 * 3 / 10);
  EXPECT_GE(bytes->size(), 0.99 * (256 * 256 * 3 / 10));
  auto stream = find_codestream(*bytes);
  ASSERT_TRUE(stream.ok());
  auto main = parse_main_header(*stream);
  ASSERT_TRUE(main.ok()) << main.status().to_string();
  EXPECT_EQ(main->cod.layers, 3);
  EXPECT_FALSE(main->cod.component.reversible);
  EXPECT_TRUE(main->cod.multiple_component_transform);
  EXPECT_EQ(main->qcd.style, QuantizationStyle::kScalarExpounded);
  EXPECT_EQ(main->qcd.steps.size(), 16u);   // 5 levels
}

TEST(EncoderRate, DerivedQuantisationSignalsOneStep) {
  const Image image = testing::generated_image(128, 96, 1, 12, false, 7);
  EncodeOptions o = lossy(Kind::kNone, {});
  o.derived_quantization = true;
  o.guard_bits = 3;
  auto bytes = encode(image, o);
  ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
  auto main = parse_main_header(*bytes);
  ASSERT_TRUE(main.ok()) << main.status().to_string();
  EXPECT_EQ(main->qcd.style, QuantizationStyle::kScalarDerived);
  EXPECT_EQ(main->qcd.steps.size(), 1u);
  EXPECT_EQ(main->qcd.guard_bits, 3);
}

TEST(EncoderRate, SameBytesForAnyThreadCount) {
  const Image image = testing::generated_image(333, 222, 3, 8, false, 8);
  EncodeOptions o = lossy(Kind::kBitsPerPixel, {0.5, 1.5});
  o.tile_width = o.tile_height = 128;
  o.threads = 1;
  auto one = encode(image, o);
  o.threads = 2;
  auto two = encode(image, o);
  o.threads = 5;
  auto five = encode(image, o);
  ASSERT_TRUE(one.ok() && two.ok() && five.ok());
  EXPECT_TRUE(*one == *two);
  EXPECT_TRUE(*one == *five);
}

TEST(EncoderRate, TruncatedReversibleStreamMeetsItsTarget) {
  // -r without -I: the 5/3 stream is cut to size.
  const Image image = testing::generated_image(200, 200, 3, 8, false, 9);
  EncodeOptions o;
  o.rate_kind = Kind::kRatio;
  o.rate_values = {8};
  auto bytes = encode(image, o);
  ASSERT_TRUE(bytes.ok());
  EXPECT_LE(bytes->size(), 200u * 200 * 3 / 8);
  EXPECT_GE(bytes->size(), 0.99 * (200 * 200 * 3 / 8));
  auto main = parse_main_header(*bytes);
  ASSERT_TRUE(main.ok());
  EXPECT_TRUE(main->cod.component.reversible);
  EXPECT_EQ(main->qcd.style, QuantizationStyle::kNone);
}

TEST(EncoderRate, OutOfOrderTargetsAreRefused) {
  const Image image = testing::generated_image(64, 64, 1, 8, false, 1);
  EXPECT_FALSE(encode(image, lossy(Kind::kRatio, {10, 20})).ok());
  EXPECT_FALSE(encode(image, lossy(Kind::kBitsPerPixel, {2, 1})).ok());
  EXPECT_FALSE(encode(image, lossy(Kind::kPsnr, {0, 40})).ok());
  EXPECT_TRUE(encode(image, lossy(Kind::kPsnr, {30, 40, 0})).ok());
}

}  // namespace
}  // namespace mallat::codec
