// The streamed encoder over tiled images (-t; codec/encoder/tile_row_store.h)
// against encode(): the same file byte for byte for tiles at the image's
// edges, partial last rows and columns of tiles, tile origins and image
// offsets, one-row tiles, tiles narrower than a code-block, sub-sampled
// components, 5/3 and 9/7, HT, precincts, layers and rate targets, JP2,
// markers, per-tile progression changes, and the coded blocks kept on disk
// past a budget counted over every tile; a sample outside its precision is
// an error (a read error: encode_streamed_test.cc).
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "codec/api/encode.h"
#include "codec/api/encode_streamed.h"
#include "common/image.h"
#include "tests/codec/encode_streamed_rows.h"

namespace mallat::codec {
namespace {

EncodeOptions tiled(uint32_t w, uint32_t h) {
  EncodeOptions o = options();
  o.tile_width = w;
  o.tile_height = h;
  return o;
}

TEST(EncodeStreamedTiles, SameBytesAsEncodeForEveryShapeOfTiles) {
  struct Shape {
    int64_t w, h;
    int components, precision;
    bool is_signed;
    int chroma;
  };
  const Shape shapes[] = {{157, 139, 3, 8, false, 1}, {141, 163, 1, 16, false, 1}, {99, 150, 3, 12, true, 1},
                          {101, 77, 3, 10, false, 2}, {70, 53, 4, 8, true, 1}};
  struct Tiling {
    std::string what;
    uint32_t tw, th, tx0 = 0, ty0 = 0, ix0 = 0, iy0 = 0;
  };
  const std::vector<Tiling> tilings = {
      {"64x64 (partial last row and column)", 64, 64},
      {"image-sized columns, 40-row tiles", 4096, 40},
      {"one-row tiles", 37, 1},
      {"tiles narrower than a code-block", 16, 48},
      {"5x7 tiles", 5, 7},
      {"-d 10,7 -T 3,2 tiles 50x40", 50, 40, 3, 2, 10, 7},
      {"-d 5,9 -T 5,0 tiles 33x21", 33, 21, 5, 0, 5, 9},
  };
  uint32_t seed = 21;
  for (const Shape& s : shapes) {
    ++seed;
    const std::string shape = std::to_string(s.w) + "x" + std::to_string(s.h) + "x" + std::to_string(s.components) +
                              " " + std::to_string(s.precision) + "-bit chroma " + std::to_string(s.chroma);
    for (const Tiling& t : tilings) {
      const Image image = test_image(s.w, s.h, s.components, s.precision, s.is_signed, seed, s.chroma, t.ix0, t.iy0);
      for (bool reversible : {true, false}) {
        EncodeOptions o = tiled(t.tw, t.th);
        o.tile_x0 = t.tx0;
        o.tile_y0 = t.ty0;
        o.image_x0 = t.ix0;
        o.image_y0 = t.iy0;
        o.reversible = reversible;
        expect_same(image, o, shape + " " + t.what + (reversible ? " 5/3" : " 9/7"));
      }
    }
  }
}

TEST(EncodeStreamedTiles, SameBytesAsEncodeForEveryOption) {
  const Image rgb = test_image(157, 139, 3, 8, false, 31);
  const Image yuv = test_image(101, 77, 3, 10, false, 32, 2, 3, 0);
  struct Case {
    std::string what;
    std::function<void(EncodeOptions&)> set;
  };
  using Rate = EncodeOptions::RateKind;
  const std::vector<Case> cases = {
      {"precincts", [](EncodeOptions& o) { o.precincts = {{5, 5}, {4, 4}}; o.xcb = o.ycb = 4; }},
      {"code-blocks 32x16", [](EncodeOptions& o) { o.xcb = 5; o.ycb = 4; }},
      {"HT", [](EncodeOptions& o) { o.style.ht = true; }},
      {"HT -r 20 --ht-rate full", [](EncodeOptions& o) {
         o.style.ht = true;
         o.rate_kind = Rate::kRatio;
         o.rate_values = {20};
         o.ht_rate = EncodeOptions::HtRate::kEveryPlane;
       }},
      {"HT 9/7 -r 20 (by estimates)", [](EncodeOptions& o) {
         o.style.ht = true;
         o.reversible = false;
         o.rate_kind = Rate::kRatio;
         o.rate_values = {20};
       }},
      {"layers -r 40,20,10", [](EncodeOptions& o) { o.rate_kind = Rate::kRatio; o.rate_values = {40, 20, 10}; }},
      {"9/7 --bpp 0.5,2", [](EncodeOptions& o) { o.reversible = false; o.rate_kind = Rate::kBitsPerPixel; o.rate_values = {0.5, 2}; }},
      {"RPCL SOP EPH TLM PLT", [](EncodeOptions& o) { o.order = ProgressionOrder::kRPCL; o.sop = o.eph = o.tlm = o.plt = true; }},
      {"PPM, tile-parts by resolution", [](EncodeOptions& o) { o.packed_headers = EncodeOptions::PackedHeaders::kPpm; o.tile_parts = TilePartDivision::kResolution; }},
      {"PPT, tile-parts by layer", [](EncodeOptions& o) { o.packed_headers = EncodeOptions::PackedHeaders::kPpt; o.tile_parts = TilePartDivision::kLayer; o.rate_kind = Rate::kRatio; o.rate_values = {30, 10}; }},
      {"ROI", [](EncodeOptions& o) { o.roi = {{0, 4}}; }},
      {"JP2", [](EncodeOptions& o) { o.container = Container::kJp2; }},
      {"tile 1's own progression", [](EncodeOptions& o) { o.progression_changes[1] = {{0, 0, 1, 3, 3, ProgressionOrder::kCPRL}}; }},
      {"no colour transform", [](EncodeOptions& o) { o.mct = 0; }},
  };
  for (const Case& c : cases) {
    EncodeOptions o = tiled(48, 40);
    c.set(o);
    expect_same(rgb, o, "RGB tiles 48x40 " + c.what);
    EncodeOptions edge = tiled(64, 64);
    edge.image_x0 = 3;
    edge.tile_x0 = 1;
    c.set(edge);
    expect_same(yuv, edge, "sub-sampled, -d 3,0 -T 1,0 tiles 64x64 " + c.what);
  }
}

// The budget is the encode's, over every tile: with many tiles the blocks
// past it go to disk as in one tile, and the bytes are the same.
TEST(EncodeStreamedTiles, CodedBlocksOnDiskPastTheBudgetOverAllTiles) {
  const Image image = test_image(300, 260, 3, 8, false, 33);
  for (bool reversible : {true, false}) {
    EncodeOptions o = tiled(100, 64);
    o.reversible = reversible;
    auto whole = encode(image, o);
    ASSERT_TRUE(whole.ok()) << whole.status().message();
    for (uint64_t budget : {uint64_t{0}, uint64_t{4000}}) {
      o.coded_memory_budget = budget;
      EncodeReport report;
      auto spilled = streamed(image, o, &report);
      ASSERT_TRUE(spilled.ok()) << spilled.status().message();
      EXPECT_TRUE(*spilled == *whole) << "budget " << budget;
      EXPECT_GT(report.spilled_blocks, 10u) << "budget " << budget;
      // 15 tiles: a budget per tile would keep 15 x 4000 bytes, most of the file.
      EXPECT_GT(report.spilled_bytes, whole->size() / 2) << "budget " << budget;
    }
  }
}

// On several threads the last tile's strips and band buffers are freed by
// a job of the encode's own while the file is assembled, and the coded
// blocks once it is written (TileCodingSetup::release); on one thread
// where they are used: the same file either way, and encode()'s, for one
// tile and for several.
TEST(EncodeStreamedTiles, SameBytesOnSeveralThreads) {
  const Image image = test_image(300, 260, 3, 8, false, 34);
  // Lossless 5/3, and HT 9/7 under a ratio (its indices kept for the
  // estimates' choice, kept_indices.h).
  for (const bool estimated : {false, true}) {
    for (const uint32_t tile : {0u, 100u}) {
      EncodeOptions o = tile > 0 ? tiled(tile, 64) : options();
      o.style.ht = estimated;
      o.reversible = !estimated;
      if (estimated) {
        o.rate_kind = EncodeOptions::RateKind::kRatio;
        o.rate_values = {20};
      }
      o.threads = 1;
      const auto whole = encode(image, o);
      ASSERT_TRUE(whole.ok()) << whole.status().message();
      for (const int threads : {1, 4}) {
        o.threads = threads;
        const auto file = streamed(image, o);
        ASSERT_TRUE(file.ok()) << file.status().message();
        EXPECT_TRUE(*file == *whole) << "estimated " << estimated << ", tiles " << tile << ", " << threads
                                     << " threads";
      }
    }
  }
}

TEST(EncodeStreamedTiles, ASampleOutsideItsPrecisionIsAnError) {
  Image image = test_image(90, 70, 3, 8, false, 34);
  image.components[1].samples[45 * 90 + 17] = 300;
  auto r = streamed(image, tiled(32, 32));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "component 1: sample 300 at (17, 45) is outside its 8-bit range 0..255");
}

}  // namespace
}  // namespace mallat::codec
