// mallat encode -> mallat decode, bit-exact, across the coding options.
#include <gtest/gtest.h>

#include <string>

#include "codec/codec.h"
#include "tests/interop/generated.h"

namespace mallat {
namespace {

using testing::generated_image;

void expect_round_trip(const Image& image, const codec::EncodeOptions& options,
                       const std::string& name) {
  auto bytes = codec::encode(image, options);
  ASSERT_TRUE(bytes.ok()) << name << ": " << bytes.status().to_string();
  auto decoded = codec::decode(*bytes, codec::DecodeOptions{});
  ASSERT_TRUE(decoded.ok()) << name << ": " << decoded.status().to_string();
  ASSERT_EQ(decoded->num_components(), image.num_components()) << name;
  for (int c = 0; c < image.num_components(); ++c) {
    ASSERT_EQ(decoded->components[c].width, image.components[c].width) << name;
    ASSERT_EQ(decoded->components[c].height, image.components[c].height) << name;
    ASSERT_TRUE(decoded->components[c].samples == image.components[c].samples)
        << name << ": component " << c << " differs";
  }
}

TEST(RoundTrip, ProgressionOrdersTilesPrecincts) {
  Image image = generated_image(157, 93, 3, 8, false, 11);
  for (int order = 0; order < 5; ++order) {
    for (bool tiles : {false, true}) {
      for (bool precincts : {false, true}) {
        codec::EncodeOptions o;
        o.order = static_cast<codec::ProgressionOrder>(order);
        if (tiles) o.tile_width = 50, o.tile_height = 40;
        if (precincts) o.precincts = {{5, 5}, {4, 4}, {3, 3}};
        expect_round_trip(image, o,
                          "order " + std::to_string(order) + (tiles ? " tiles" : "") +
                              (precincts ? " precincts" : ""));
      }
    }
  }
}

TEST(RoundTrip, CodeBlockSizes) {
  Image image = generated_image(97, 75, 1, 12, true, 3);
  const int sizes[][2] = {{2, 2}, {3, 3}, {4, 4}, {5, 5}, {6, 6}, {2, 10}, {10, 2},
                          {3, 6}, {6, 3}, {4, 8}};
  for (const auto& s : sizes) {
    codec::EncodeOptions o;
    o.xcb = s[0];
    o.ycb = s[1];
    expect_round_trip(image, o, "code-block 2^" + std::to_string(s[0]) + "x2^" + std::to_string(s[1]));
  }
}

TEST(RoundTrip, ImageOffsetsAndLevels) {
  Image image = generated_image(61, 45, 2, 16, false, 4);
  for (int resolutions : {1, 2, 4, 6}) {
    codec::EncodeOptions o;
    o.resolutions = resolutions;
    o.image_x0 = 3;
    o.image_y0 = 5;
    o.tile_width = 32;
    o.tile_height = 32;
    o.tile_x0 = 1;
    o.tile_y0 = 2;
    expect_round_trip(image, o, "resolutions " + std::to_string(resolutions) + " with offsets");
  }
}

TEST(RoundTrip, ThreadCountDoesNotChangeOutput) {
  Image image = generated_image(300, 200, 3, 8, false, 9);
  codec::EncodeOptions one, two;
  one.threads = 1;
  two.threads = 3;
  auto a = codec::encode(image, one);
  auto b = codec::encode(image, two);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(*a == *b);
}

}  // namespace
}  // namespace mallat

namespace mallat {
namespace {

// Mode switches (D.6) change how passes are terminated and so how Tier-2
// signals segment lengths; every combination must still round-trip, and
// OpenJPEG must read them too.
TEST(RoundTrip, CodeBlockModeSwitches) {
  Image image = testing::generated_image(90, 70, 3, 12, false, 21);
  for (int bits : {1, 2, 4, 5, 8, 16, 32, 63}) {
    codec::EncodeOptions o;
    o.style = codec::CodeBlockStyle::from_byte(static_cast<uint8_t>(bits));
    o.xcb = o.ycb = 4;
    expect_round_trip(image, o, "mode switches " + std::to_string(bits));
  }
}

}  // namespace
}  // namespace mallat
