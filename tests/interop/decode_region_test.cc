// DecodeOptions::region (-d x0,y0,x1,y1): a region decode equals the crop of
// the whole decode sample for sample, for the 5/3 and the 9/7, tiled and
// untiled, with precincts and PLT and without, at every reduction; against
// opj_decompress -d; the errors.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "codec/codec.h"
#include "dwt/geometry.h"
#include "io/file.h"
#include "io/image_io.h"
#include "tests/codec/codec_test_util.h"
#include "tests/interop/generated.h"
#include "tests/testdata.h"

namespace mallat::codec {
namespace {

using dwt::Rect;
using mallat::codec::testing::read_bytes;

std::string text(const Rect& r) {
  return std::to_string(r.x0) + "," + std::to_string(r.y0) + "," + std::to_string(r.x1) + "," + std::to_string(r.y1);
}

// The part of component `c` of `whole` (a whole decode at reduction
// `reduce`) that lies in `area` of the reference grid (B-12, B-14).
Component crop(const Image& whole, size_t c, const Rect& area, int reduce) {
  const Component& w = whole.components[c];
  const auto grid = [&](int64_t v, int d) { return dwt::ceil_div_pow2((v + d - 1) / d, reduce); };
  const int64_t ox = grid(whole.x0, w.dx), oy = grid(whole.y0, w.dy);
  const int64_t x0 = grid(area.x0, w.dx) - ox, x1 = grid(area.x1, w.dx) - ox;
  const int64_t y0 = grid(area.y0, w.dy) - oy, y1 = grid(area.y1, w.dy) - oy;
  Component out = w;
  out.width = x1 - x0;
  out.height = y1 - y0;
  out.samples.clear();
  for (int64_t y = y0; y < y1; ++y)
    for (int64_t x = x0; x < x1; ++x) out.samples.push_back(w.samples[static_cast<size_t>(y * w.width + x)]);
  return out;
}

// Each region (offsets from the image's top-left; cut to the image), decoded
// with `options`, against the crop of a whole decode with the same options.
void expect_regions_of_whole(std::span<const uint8_t> bytes, DecodeOptions options, const std::vector<Rect>& regions,
                             const std::string& what) {
  options.region.reset();
  const auto whole = decode(bytes, options);
  ASSERT_TRUE(whole.ok()) << what << ": " << whole.status().to_string();
  for (const Rect& offset : regions) {
    // Negative coordinates are refused (EmptyOrOutsideIsAnErrorThatSaysSo).
    const Rect region{std::max<int64_t>(0, whole->x0 + offset.x0), std::max<int64_t>(0, whole->y0 + offset.y0),
                      whole->x0 + offset.x1, whole->y0 + offset.y1};
    const Rect cut{std::max(region.x0, whole->x0), std::max(region.y0, whole->y0), std::min(region.x1, whole->x1),
                   std::min(region.y1, whole->y1)};
    const std::string name = what + ", -d " + text(region) + " -r " + std::to_string(options.reduce);
    options.region = region;
    DecodeReport report;
    const auto part = decode(bytes, options, &report);
    ASSERT_TRUE(part.ok()) << name << ": " << part.status().to_string();
    const Rect got_area{part->x0, part->y0, part->x1, part->y1};
    EXPECT_EQ(got_area, cut) << name;
    const bool warned = std::any_of(report.warnings.begin(), report.warnings.end(), [](const std::string& w) {
      return w.find("cut to the image area") != std::string::npos;
    });
    EXPECT_EQ(warned, cut != region) << name;
    // PLT's lengths agree with the packets read (packet_reader.h warns otherwise).
    for (const std::string& w : report.warnings) EXPECT_EQ(w.find("PLT"), std::string::npos) << name << ": " << w;
    ASSERT_EQ(part->components.size(), whole->components.size()) << name;
    for (size_t c = 0; c < whole->components.size(); ++c) {
      const Component expected = crop(*whole, c, cut, options.reduce);
      const Component& got = part->components[c];
      EXPECT_EQ(got.width, expected.width) << name << ", component " << c;
      EXPECT_EQ(got.height, expected.height) << name << ", component " << c;
      EXPECT_TRUE(got.samples == expected.samples) << name << ", component " << c;
    }
  }
}

// Corners, a single sample, tile borders crossed, a row, a column, the
// whole image, and regions reaching past the image.
std::vector<Rect> regions_for(int64_t w, int64_t h) {
  return {{0, 0, 1, 1},          {w - 1, h - 1, w, h},    {0, 0, w, h},         {50, 37, 71, 58},
          {-5, -3, 30, 20},      {w - 40, 0, w + 10, 35}, {100, 3, 101, h},    {5, h / 2, w - 3, h / 2 + 1},
          {17, 23, w - 19, h - 11}, {64, 48, 128, 96}};
}

std::vector<uint8_t> encoded(const Image& image, const EncodeOptions& options) {
  auto bytes = encode(image, options);
  EXPECT_TRUE(bytes.ok()) << bytes.status().to_string();
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

struct Layout {
  std::string name;
  EncodeOptions options;
};

std::vector<Layout> layouts() {
  std::vector<Layout> out;
  EncodeOptions untiled;
  untiled.resolutions = 5;
  untiled.xcb = untiled.ycb = 4;  // many code-blocks, so that choosing them matters
  out.push_back({"untiled", untiled});
  EncodeOptions tiled = untiled;
  tiled.tile_width = 64;
  tiled.tile_height = 48;
  tiled.tile_x0 = 7;
  tiled.tile_y0 = 5;
  tiled.image_x0 = 13;
  tiled.image_y0 = 9;
  tiled.resolutions = 4;
  out.push_back({"tiled 64x48 at 7,5, image at 13,9", tiled});
  EncodeOptions precincts = untiled;
  precincts.precincts = {{5, 5}, {4, 4}};
  precincts.plt = true;
  precincts.order = ProgressionOrder::kRPCL;
  precincts.sop = precincts.eph = true;
  out.push_back({"precincts 32,16 with PLT, SOP, EPH, RPCL", precincts});
  EncodeOptions both = tiled;
  both.precincts = {{4, 4}};
  both.plt = true;
  both.tlm = true;
  out.push_back({"tiled with precincts 16, PLT and TLM", both});
  return out;
}

TEST(DecodeRegion, CropOfTheWholeDecode) {
  const Image image = mallat::testing::generated_image(203, 157, 3, 8, false, 4242);
  for (const Layout& layout : layouts())
    for (bool reversible : {true, false}) {
      EncodeOptions options = layout.options;
      options.reversible = reversible;
      const std::vector<uint8_t> bytes = encoded(image, options);
      for (int reduce : {0, 1, 2}) {
        DecodeOptions d;
        d.reduce = reduce;
        expect_regions_of_whole(bytes, d, regions_for(203, 157),
                                layout.name + (reversible ? ", 5/3" : ", 9/7"));
      }
    }
}

TEST(DecodeRegion, LayersComponentsAndLossy) {
  const Image image = mallat::testing::generated_image(120, 90, 4, 12, false, 77);
  EncodeOptions options;
  options.reversible = false;
  options.rate_kind = EncodeOptions::RateKind::kBitsPerPixel;
  options.rate_values = {1.0, 4.0};
  options.tile_width = options.tile_height = 50;
  options.precincts = {{5, 5}, {4, 4}};
  options.plt = true;  // the packets of components and precincts not decoded are stepped over
  const std::vector<uint8_t> bytes = encoded(image, options);
  const std::vector<Rect> regions = {{10, 10, 60, 40}, {49, 0, 51, 90}, {0, 0, 120, 90}};
  DecodeOptions d;
  d.layers = 1;
  expect_regions_of_whole(bytes, d, regions, "9/7, two layers, first only");
  d.layers = 0;
  d.components = {3, 1};
  expect_regions_of_whole(bytes, d, regions, "9/7, -c 3,1");
  d.reduce = 1;
  expect_regions_of_whole(bytes, d, regions, "9/7, -c 3,1 -r 1");
}

TEST(DecodeRegion, WithOneTile) {
  // -t and -d together: the region cut to the tile, with the warning.
  const Image image = mallat::testing::generated_image(120, 90, 3, 8, false, 5);
  EncodeOptions options;
  options.tile_width = options.tile_height = 50;
  const std::vector<uint8_t> bytes = encoded(image, options);
  DecodeOptions d;
  d.tile = 4;  // (50, 50) - (100, 90)
  const auto tile = decode(bytes, d);
  ASSERT_TRUE(tile.ok()) << tile.status().to_string();
  d.region = Rect{40, 60, 70, 80};
  DecodeReport report;
  const auto part = decode(bytes, d, &report);
  ASSERT_TRUE(part.ok()) << part.status().to_string();
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_NE(report.warnings[0].find("cut to the image area: 50,60,70,80"), std::string::npos) << report.warnings[0];
  for (size_t c = 0; c < 3; ++c) {
    ASSERT_EQ(part->components[c].width, 20);
    ASSERT_EQ(part->components[c].height, 20);
    for (int64_t y = 0; y < 20; ++y)
      for (int64_t x = 0; x < 20; ++x)
        ASSERT_EQ(part->components[c].samples[static_cast<size_t>(y * 20 + x)],
                  tile->components[c].samples[static_cast<size_t>((y + 10) * 50 + x)])
            << c << " " << x << " " << y;
  }
  d.region = Rect{0, 0, 40, 40};
  EXPECT_FALSE(decode(bytes, d).ok());
}

TEST(DecodeRegion, SubSampledAndHtStreams) {
  // p0_06: 4 components sub-sampled 1x1, 2x1, 1x2, 2x2; p1_07: 4x1 and 1x1
  // at an odd origin in small tiles; an HT stream.
  for (const char* name : {"conformance/p0_06.j2k", "conformance/p1_07.j2k", "conformance/htj2k/ds0_ht_06_b18.j2k",
                           "conformance/p0_03.j2k", "conformance/p1_02.j2k"}) {
    MALLAT_REQUIRE_TESTDATA(name);
    const std::vector<uint8_t> bytes = read_bytes(mallat::testing::testdata_dir() / name);
    const auto whole = decode(bytes, DecodeOptions{});
    ASSERT_TRUE(whole.ok()) << name << ": " << whole.status().to_string();
    const int64_t w = whole->x1 - whole->x0, h = whole->y1 - whole->y0;
    for (int reduce : {0, 1}) {
      DecodeOptions d;
      d.reduce = reduce;
      expect_regions_of_whole(bytes, d, {{0, 0, 1, 1}, {3, 5, w / 2 + 1, h / 3 + 2}, {w / 3, h / 4, w, h}}, name);
    }
  }
}

TEST(DecodeRegion, EmptyOrOutsideIsAnErrorThatSaysSo) {
  const Image image = mallat::testing::generated_image(40, 30, 1, 8, false, 1);
  EncodeOptions options;
  options.image_x0 = 10;
  options.image_y0 = 10;
  const std::vector<uint8_t> bytes = encoded(image, options);
  const auto expect_error = [&](const Rect& r, const std::string& says) {
    DecodeOptions d;
    d.region = r;
    const auto out = decode(bytes, d);
    ASSERT_FALSE(out.ok()) << text(r);
    EXPECT_NE(out.status().message().find(says), std::string::npos) << out.status().to_string();
  };
  expect_error({5, 5, 5, 9}, "is empty");
  expect_error({0, 0, 10, 10}, "lies outside the image area 10,10,50,40");
  expect_error({50, 10, 60, 20}, "lies outside");
  expect_error({-1, 10, 20, 20}, "negative");
}

// opj_decompress -d on mallat's streams: the same samples for the 5/3; for
// the 9/7, OpenJPEG's whole decodes differ from ours by up to 1 too.
TEST(DecodeRegion, AsOpjDecompress) {
  ASSERT_EQ(std::system("command -v opj_decompress > /dev/null 2>&1"), 0)
      << "opj_decompress is not installed (tools/quickstart.sh installs it)";
  const std::filesystem::path dir = mallat::testing::make_temp_dir("decode-region");
  const Image image = mallat::testing::generated_image(203, 157, 3, 8, false, 99);
  int n = 0;
  for (const Layout& layout : layouts())
    for (bool reversible : {true, false})
      for (const auto& [region, reduce] : std::vector<std::pair<Rect, int>>{
               {{50, 37, 71, 58}, 0}, {{13, 9, 200, 100}, 1}, {{150, 120, 216, 166}, 2}}) {
        EncodeOptions options = layout.options;
        options.reversible = reversible;
        const std::string number = std::to_string(n++);
        const std::filesystem::path stream = dir / ("s" + number + ".j2k"), out = dir / ("o" + number + ".ppm");
        const std::vector<uint8_t> bytes = encoded(image, options);
        ASSERT_TRUE(io::write_file_atomically(stream, bytes).ok());
        const std::string cmd = "opj_decompress -i '" + stream.string() + "' -o '" + out.string() + "' -d " +
                                text(region) + " -r " + std::to_string(reduce) + " > /dev/null 2>&1";
        ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
        const auto theirs = io::read_image(out);
        ASSERT_TRUE(theirs.ok()) << theirs.status().to_string();
        DecodeOptions d;
        d.region = region;
        d.reduce = reduce;
        const auto ours = decode(bytes, d);
        ASSERT_TRUE(ours.ok()) << ours.status().to_string();
        const std::string name = layout.name + (reversible ? ", 5/3" : ", 9/7") + ", " + cmd;
        ASSERT_EQ(theirs->components.size(), ours->components.size()) << name;
        for (size_t c = 0; c < ours->components.size(); ++c) {
          const Component& a = ours->components[c];
          const Component& b = theirs->components[c];
          ASSERT_EQ(a.width, b.width) << name;
          ASSERT_EQ(a.height, b.height) << name;
          int peak = 0;
          for (size_t i = 0; i < a.samples.size(); ++i) peak = std::max(peak, std::abs(a.samples[i] - b.samples[i]));
          EXPECT_LE(peak, reversible ? 0 : 1) << name << ", component " << c;
        }
      }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mallat::codec
