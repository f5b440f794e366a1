// decode's raster overload (codec/api/decode.h): where the image allows it,
// the samples come as a binary PNM's raster with the same values the plain
// decode puts in the components; where it does not, the raster stays empty
// and the image is the plain decode's. Tiles cut on every side, reduced
// resolutions, a region, one tile, truncated streams, JP2 headers.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "codec/codec.h"
#include "tests/codec/codec_test_util.h"
#include "tests/interop/generated.h"
#include "tests/testdata.h"

namespace mallat::codec {
namespace {

// Decodes `stream` with `raster` given, against `plain`; returns whether
// the raster was taken, having checked that it (or the image) holds the
// plain decode's samples.
bool expect_raster_is_plain(std::span<const uint8_t> stream, const DecodeOptions& o, const Result<Image>& plain,
                            std::vector<uint8_t> raster, const std::string& what) {
  Result<Image> fast = decode(stream, o, nullptr, &raster);
  EXPECT_EQ(plain.ok(), fast.ok()) << what;
  if (!plain.ok() || !fast.ok()) {
    EXPECT_TRUE(raster.empty()) << what << ": a failed decode leaves no raster";
    return false;
  }
  const int n = plain->num_components();
  EXPECT_EQ(fast->num_components(), n) << what;
  EXPECT_EQ(fast->color_space, plain->color_space) << what;
  for (int c = 0; c < n; ++c) {
    const Component &a = plain->components[c], &b = fast->components[c];
    EXPECT_EQ(a.width, b.width) << what;
    EXPECT_EQ(a.height, b.height) << what;
    EXPECT_EQ(a.precision, b.precision) << what;
    EXPECT_EQ(a.is_signed, b.is_signed) << what;
    EXPECT_EQ(a.role, b.role) << what;
  }
  if (raster.empty()) {
    for (int c = 0; c < n; ++c)
      EXPECT_EQ(fast->components[c].samples, plain->components[c].samples) << what << ", component " << c;
    return false;
  }
  const int64_t w = plain->width(), h = plain->height();
  EXPECT_EQ(raster.size(), static_cast<size_t>(w * h * n)) << what;
  if (raster.size() != static_cast<size_t>(w * h * n)) return true;
  for (int c = 0; c < n; ++c) {
    EXPECT_TRUE(fast->components[c].samples.empty()) << what << ": the raster holds the samples";
    const std::vector<int32_t>& s = plain->components[c].samples;
    int64_t differing = 0;
    for (int64_t i = 0; i < w * h; ++i) differing += raster[static_cast<size_t>(i * n + c)] != s[static_cast<size_t>(i)];
    EXPECT_EQ(differing, 0) << what << ", component " << c;
  }
  return true;
}

// Both ways, the raster given twice: a few bytes (emptied where not taken),
// then memory to reuse of the output's size, every byte poisoned (each
// must be written, zero where a tile is missing).
bool expect_raster_is_plain(std::span<const uint8_t> stream, DecodeOptions o, const std::string& what) {
  o.dwt_backend = dwt::BackendKind::kCpu;
  Result<Image> plain = decode(stream, o);
  const bool taken = expect_raster_is_plain(stream, o, plain, {1, 2, 3}, what);
  if (!plain.ok()) return taken;
  const size_t n = static_cast<size_t>(plain->width() * plain->height() * plain->num_components());
  EXPECT_EQ(expect_raster_is_plain(stream, o, plain, std::vector<uint8_t>(n, 0xA5), what + ", memory reused"), taken);
  return taken;
}

EncodeOptions tiled(bool reversible, bool one_tile) {
  EncodeOptions o = testing::cut_tiles(reversible);
  if (one_tile) o.tile_width = o.tile_height = o.tile_x0 = o.tile_y0 = o.image_x0 = o.image_y0 = 0;
  return o;
}

TEST(DecodeRaster, BytesOfEveryComponentCountAndWavelet) {
  struct Case {
    int components, precision;
    bool reversible;
  };
  for (const Case& k : {Case{3, 8, true}, Case{3, 8, false}, Case{1, 8, true}, Case{2, 5, true}, Case{4, 8, false}}) {
    const Image image = mallat::testing::generated_image(203, 117, k.components, k.precision, false, 5);
    for (const bool one_tile : {true, false}) {
      Result<std::vector<uint8_t>> stream = encode(image, tiled(k.reversible, one_tile));
      ASSERT_TRUE(stream.ok()) << stream.status().to_string();
      const std::string what = std::to_string(k.components) + " x " + std::to_string(k.precision) + " bits" +
                               (k.reversible ? ", 5/3" : ", 9/7") + (one_tile ? ", one tile" : ", tiles");
      for (const int threads : {1, 3}) {
        DecodeOptions o;
        o.threads = threads;
        EXPECT_TRUE(expect_raster_is_plain(*stream, o, what)) << what;
        o.reduce = 1;
        EXPECT_TRUE(expect_raster_is_plain(*stream, o, what + ", reduced")) << what;
        o.reduce = 0;
        o.region = dwt::Rect{30, 20, 150, 90};
        EXPECT_TRUE(expect_raster_is_plain(*stream, o, what + ", region")) << what;
        o.region.reset();
        if (!one_tile) {
          o.tile = 4;
          EXPECT_TRUE(expect_raster_is_plain(*stream, o, what + ", tile 4")) << what;
        }
      }
      if (k.reversible) {
        // Lossless: the raster is the image's own samples.
        std::vector<uint8_t> raster;
        ASSERT_TRUE(decode(*stream, DecodeOptions{}, nullptr, &raster).ok());
        ASSERT_EQ(raster.size(), static_cast<size_t>(image.width() * image.height() * k.components));
        for (int c = 0; c < k.components; ++c)
          EXPECT_EQ(raster[static_cast<size_t>(c)], image.components[c].samples[0]) << what;
      }
    }
  }
}

TEST(DecodeRaster, NotTakenBeyondBytesOrForSomeComponents) {
  // Past 8 bits, signed, or a -c subset: the samples stay in the image.
  for (const auto& [precision, is_signed] : {std::pair(12, false), std::pair(8, true), std::pair(16, false)}) {
    const Image image = mallat::testing::generated_image(97, 61, 3, precision, is_signed, 7);
    Result<std::vector<uint8_t>> stream = encode(image, tiled(true, false));
    ASSERT_TRUE(stream.ok());
    EXPECT_FALSE(expect_raster_is_plain(*stream, {}, std::to_string(precision) + " bits"));
  }
  const Image image = mallat::testing::generated_image(97, 61, 3, 8, false, 7);
  Result<std::vector<uint8_t>> stream = encode(image, tiled(true, false));
  ASSERT_TRUE(stream.ok());
  DecodeOptions o;
  o.components = {2, 0};
  EXPECT_FALSE(expect_raster_is_plain(*stream, o, "components 2, 0"));
  o.components = {0, 1, 2};
  EXPECT_TRUE(expect_raster_is_plain(*stream, o, "components 0, 1, 2"));
}

TEST(DecodeRaster, TruncatedStreamsGiveThePlainDecodesZeros) {
  for (const bool reversible : {true, false}) {
    const Image image = mallat::testing::generated_image(150, 100, 3, 8, false, 8);
    Result<std::vector<uint8_t>> stream = encode(image, tiled(reversible, false));
    ASSERT_TRUE(stream.ok());
    for (const size_t percent : {20, 45, 70, 95}) {
      const std::span<const uint8_t> cut(stream->data(), stream->size() * percent / 100);
      EXPECT_TRUE(expect_raster_is_plain(cut, {}, std::to_string(percent) + "% of the stream"));
      // Tiles missing (B.3), decoded as zeros.
      DecodeOptions partial;
      partial.allow_partial = true;
      EXPECT_TRUE(expect_raster_is_plain(cut, partial, std::to_string(percent) + "% of the stream, partial"));
    }
  }
}

TEST(DecodeRaster, Jp2HeadersThatChangeSamplesKeepThem) {
  MALLAT_REQUIRE_TESTDATA("conformance");
  const auto dir = mallat::testing::testdata_dir() / "conformance";
  // file1: sRGB (taken); file2: sYCC with cdef, file3: sYCC, file9: a
  // palette (the samples change after the decode: not taken); the others
  // (greyscale, ICC profiles) are taken where their components fit bytes.
  int taken = 0;
  for (int i = 1; i <= 9; ++i) {
    const std::string name = "file" + std::to_string(i) + ".jp2";
    const auto bytes = testing::read_bytes(dir / name);
    ASSERT_FALSE(bytes.empty()) << name;
    const bool raster = expect_raster_is_plain(bytes, {}, name);
    if (i == 2 || i == 3 || i == 9) {
      EXPECT_FALSE(raster) << name;
    }
    if (i == 1) {
      EXPECT_TRUE(raster) << name;
    }
    taken += raster;
    // Without the header applied, the codestream's components as decoded.
    DecodeOptions o;
    o.apply_jp2_header = false;
    expect_raster_is_plain(bytes, o, name + ", header not applied");
  }
  EXPECT_GE(taken, 2);
}

}  // namespace
}  // namespace mallat::codec
