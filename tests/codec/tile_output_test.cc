// write_tile (bands of rows on the pool, every step per row) against
// write_tile_reference (one step at a time over whole planes): the same
// image for any thread count, on odd sizes, tiles that stick out of the
// image on any side, sub-sampled components, both colour transforms,
// precisions 1..31 and floats at the edges of the range (ties, NaN, inf);
// write_tile_bytes against write_tile's samples interleaved.
#include "codec/stages/tile_output.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace mallat::codec {
namespace {

struct ComponentSpec {
  int precision;
  bool is_signed;
  bool reversible;
  dwt::Rect rect;  // the tile-component on the reduced grid
};

// One tile's planes, filled with random values around the component's
// range (and beyond it, so that the clamps work), some exact extremes.
class TestTile {
 public:
  TestTile(const std::vector<ComponentSpec>& specs, uint32_t seed) : specs_(specs) {
    std::mt19937 rng(seed);
    ints_.resize(specs.size());
    floats_.resize(specs.size());
    for (size_t c = 0; c < specs.size(); ++c) {
      const ComponentSpec& s = specs[c];
      // A stride wider than the row, so that row addressing shows.
      const int64_t h = s.rect.height(), stride = s.rect.width() + 3;
      const double half = std::ldexp(1.0, s.precision - 1);
      std::uniform_real_distribution<double> value(-1.5 * half, 1.5 * half);
      if (s.reversible) {
        ints_[c].resize(static_cast<size_t>(stride * h));
        // The extremes stay within what the reference's int32 arithmetic
        // (RCT, then a DC shift of up to 2^30) holds without overflow.
        constexpr int32_t kExtreme = 1 << 28;
        for (int32_t& v : ints_[c]) {
          const uint32_t pick = rng() % 64;
          v = pick == 0   ? kExtreme
              : pick == 1 ? -kExtreme
                          : static_cast<int32_t>(std::clamp<double>(value(rng), -kExtreme, kExtreme));
        }
      } else {
        floats_[c].resize(static_cast<size_t>(stride * h));
        for (float& v : floats_[c]) {
          const uint32_t pick = rng() % 64;
          v = pick == 0   ? std::numeric_limits<float>::quiet_NaN()
              : pick == 1 ? std::numeric_limits<float>::infinity()
              : pick == 2 ? -std::numeric_limits<float>::infinity()
              : pick == 3 ? 3e9f
              : pick == 4 ? -3e9f
              : pick < 12 ? static_cast<float>(std::floor(value(rng))) + 0.5f  // a tie
                          : static_cast<float>(value(rng));
        }
      }
    }
  }

  // Fresh views (write_tile uses the 9/7's planes as scratch).
  std::vector<DecodedTileComponent> views() {
    std::vector<DecodedTileComponent> out(specs_.size());
    for (size_t c = 0; c < specs_.size(); ++c) {
      const ComponentSpec& s = specs_[c];
      const int64_t w = s.rect.width(), h = s.rect.height();
      out[c].rect = s.rect;
      if (s.reversible) {
        out[c].samples53 = {ints_[c].data(), w, h, w + 3};
      } else {
        out[c].samples97 = {floats_[c].data(), w, h, w + 3};
      }
    }
    return out;
  }

 private:
  std::vector<ComponentSpec> specs_;
  std::vector<std::vector<int32_t>> ints_;
  std::vector<std::vector<float>> floats_;
};

int64_t ceil_div(int64_t a, int64_t d) { return a >= 0 ? (a + d - 1) / d : a / d; }

Image blank_image(const std::vector<ComponentSpec>& specs, int64_t width, int64_t height,
                  const std::vector<int>& sub) {
  Image image;
  for (size_t c = 0; c < specs.size(); ++c) {
    Component comp;
    comp.width = (width + sub[c] - 1) / sub[c];
    comp.height = (height + sub[c] - 1) / sub[c];
    comp.precision = specs[c].precision;
    comp.is_signed = specs[c].is_signed;
    comp.samples.assign(static_cast<size_t>(comp.width * comp.height), 0x5a5a5a5a);
    image.components.push_back(comp);
  }
  return image;
}

// Several tiles of one image through both paths at several thread counts.
void check_tiles(const std::vector<ComponentSpec>& first, const std::vector<int>& sub, bool colour,
                 uint32_t seed) {
  const int64_t width = 97, height = 61;
  // Tiles on a 40 x 27 grid from (-13, -5) (on component 0's grid), so that
  // the first and last stick out of the image.
  std::vector<std::vector<ComponentSpec>> tiles;
  for (int64_t ty = -5; ty < height; ty += 27) {
    for (int64_t tx = -13; tx < width; tx += 40) {
      std::vector<ComponentSpec> t = first;
      for (size_t c = 0; c < t.size(); ++c) {
        const int d = sub[c];
        t[c].rect = {ceil_div(tx, d), ceil_div(ty, d), ceil_div(tx + 40, d), ceil_div(ty + 27, d)};
      }
      tiles.push_back(t);
    }
  }
  // Origins 0 on each grid; the rects above may start left of / above it.
  const std::vector<int64_t> origin(first.size(), 0);
  Image expected = blank_image(first, width, height, sub);
  for (size_t i = 0; i < tiles.size(); ++i) {
    TestTile t(tiles[i], seed + static_cast<uint32_t>(i));
    write_tile_reference(t.views(), colour, origin, origin, expected);
  }
  for (int threads : {1, 2, 3, 7}) {
    ThreadPool pool(threads);
    Image got = blank_image(first, width, height, sub);
    for (size_t i = 0; i < tiles.size(); ++i) {
      TestTile t(tiles[i], seed + static_cast<uint32_t>(i));
      write_tile(t.views(), colour, origin, origin, got, pool);
    }
    for (size_t c = 0; c < first.size(); ++c) {
      ASSERT_EQ(got.components[c].samples, expected.components[c].samples)
          << "component " << c << ", " << threads << " threads, precision " << first[c].precision
          << (first[c].is_signed ? " signed" : " unsigned") << (first[c].reversible ? " 5/3" : " 9/7")
          << (colour ? ", colour transform" : "");
    }
  }
}

TEST(TileOutput, ColourTransformsMatchTheReference) {
  uint32_t seed = 1;
  for (bool reversible : {true, false}) {
    for (int precision : {1, 8, 12, 16, 24}) {
      for (bool is_signed : {false, true}) {
        const ComponentSpec s{precision, is_signed, reversible, {}};
        check_tiles({s, s, s}, {1, 1, 1}, true, seed++);
        // A fourth component (alpha) beside the colour transform.
        check_tiles({s, s, s, {precision, !is_signed, !reversible, {}}}, {1, 1, 1, 2}, true, seed++);
      }
    }
  }
}

TEST(TileOutput, ComponentsWithoutColourTransformMatchTheReference) {
  uint32_t seed = 100;
  for (int precision : {1, 7, 10, 16, 24, 25, 29, 31}) {
    for (bool is_signed : {false, true}) {
      const ComponentSpec a{precision, is_signed, true, {}}, b{precision, is_signed, false, {}};
      // Sub-sampled components: each on its own grid.
      check_tiles({a, b, a}, {1, 2, 3}, false, seed++);
      check_tiles({b}, {1}, false, seed++);
    }
  }
}

// write_tile_bytes against write_tile and an interleave of its samples:
// every unsigned precision up to 8 bits, one to four components, with and
// without the colour transform, both wavelets, on the tiles of check_tiles
// (sticking out of the image), rows wide enough for the vector loop and its
// tail (and narrower ones), at several thread counts.
void check_bytes(const std::vector<ComponentSpec>& first, bool colour, uint32_t seed) {
  const int64_t width = 97, height = 61;
  const std::vector<int> sub(first.size(), 1);
  const std::vector<int64_t> origin(first.size(), 0);
  const auto n = static_cast<int64_t>(first.size());
  for (int threads : {1, 3}) {
    ThreadPool pool(threads);
    Image expected = blank_image(first, width, height, sub);
    std::vector<uint8_t> got(static_cast<size_t>(width * height * n), 0x5a);
    uint32_t s = seed;
    for (int64_t ty = -5; ty < height; ty += 27) {
      for (int64_t tx = -13; tx < width; tx += 40) {
        std::vector<ComponentSpec> specs = first;
        for (ComponentSpec& c : specs) c.rect = {tx, ty, tx + 40, ty + 27};
        TestTile a(specs, s), b(specs, s);
        ++s;
        write_tile(a.views(), colour, origin, origin, expected, pool);
        write_tile_bytes(b.views(), colour, origin, origin, expected, got.data(), pool);
      }
    }
    for (int64_t i = 0; i < width * height; ++i) {
      for (int64_t c = 0; c < n; ++c) {
        ASSERT_EQ(got[static_cast<size_t>(i * n + c)], expected.components[c].samples[static_cast<size_t>(i)])
            << "pixel " << i << " component " << c << ", " << threads << " threads, precision " << first[c].precision
            << (first[c].reversible ? " 5/3" : " 9/7") << (colour ? ", colour transform" : "");
      }
    }
  }
}

TEST(TileOutput, BytesMatchTheSamplesInterleaved) {
  uint32_t seed = 300;
  for (int precision : {1, 5, 8}) {
    for (bool reversible : {true, false}) {
      const ComponentSpec s{precision, false, reversible, {}};
      check_bytes({s, s, s}, true, seed++);
      check_bytes({s, s, s}, false, seed++);
      check_bytes({s}, false, seed++);
      check_bytes({s, s, s, {precision, false, !reversible, {}}}, true, seed++);
    }
  }
  Image signed_image = blank_image({{8, true, true, {}}}, 4, 4, {1});
  EXPECT_FALSE(fits_bytes(signed_image));
  EXPECT_FALSE(fits_bytes(blank_image({{9, false, true, {}}}, 4, 4, {1})));
  EXPECT_TRUE(fits_bytes(blank_image({{8, false, true, {}}, {8, false, true, {}}, {8, false, true, {}}}, 4, 4, {1, 1, 1})));
}

// The 5/3's planes are only read (the streamed decoder hands over rows its
// inverse DWT reads again), both where components 0..2 land on the same
// columns (the RCT in one pass) and where their origins differ (on a copy).
TEST(TileOutput, ReversiblePlanesAreOnlyRead) {
  const ComponentSpec s{8, false, true, {-3, -2, 37, 25}};
  const std::vector<std::vector<int64_t>> origins_x = {{0, 0, 0}, {0, 3, -2}}, origins_y = {{0, 0, 0}, {0, 1, 4}};
  for (size_t k = 0; k < origins_x.size(); ++k) {
    TestTile want_tile({s, s, s}, 7), got_tile({s, s, s}, 7);
    Image expected = blank_image({s, s, s}, 30, 20, {1, 1, 1}), got = expected;
    write_tile_reference(want_tile.views(), true, origins_x[k], origins_y[k], expected);
    const std::vector<DecodedTileComponent> views = got_tile.views();
    std::vector<std::vector<int32_t>> before(3);
    for (int c = 0; c < 3; ++c)
      for (int64_t y = 0; y < views[c].height(); ++y)
        before[c].insert(before[c].end(), views[c].samples53.row(y), views[c].samples53.row(y) + views[c].width());
    ThreadPool pool(2);
    write_tile(views, true, origins_x[k], origins_y[k], got, pool);
    for (int c = 0; c < 3; ++c) {
      EXPECT_EQ(got.components[c].samples, expected.components[c].samples) << "component " << c << ", origins " << k;
      std::vector<int32_t> after;
      for (int64_t y = 0; y < views[c].height(); ++y)
        after.insert(after.end(), views[c].samples53.row(y), views[c].samples53.row(y) + views[c].width());
      EXPECT_EQ(after, before[c]) << "component " << c << " was written, origins " << k;
    }
  }
}

TEST(TileOutput, EmptyPlanesWriteNothing) {
  const ComponentSpec s{8, false, true, {5, 5, 5, 9}};  // zero wide
  TestTile t({s, s, s}, 3);
  Image image = blank_image({s, s, s}, 10, 10, {1, 1, 1});
  const Image before = image;
  ThreadPool pool(2);
  const std::vector<int64_t> origin(3, 0);
  write_tile(t.views(), true, origin, origin, image, pool);
  for (int c = 0; c < 3; ++c) EXPECT_EQ(image.components[c].samples, before.components[c].samples);
}

}  // namespace
}  // namespace mallat::codec
