#include "codec/encoder/rate_control.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "common/thread_pool.h"

namespace mallat::codec {
namespace {

std::vector<entropy::CodingPass> make_passes(const std::vector<uint32_t>& lengths, const std::vector<double>& gains) {
  std::vector<entropy::CodingPass> passes(lengths.size());
  for (size_t i = 0; i < lengths.size(); ++i) {
    passes[i].cumulative_length = lengths[i];
    passes[i].distortion_decrease = gains[i];
  }
  return passes;
}

TEST(ConvexHull, DropsPointsUnderTheHull) {
  // Points (bytes, cumulative gain): (10, 100) (12, 101) (30, 200) (30, 210) (50, 215) (60, 216).
  // (12, 101) lies under the chord from (10, 100) to (30, 210); (30, 200) is
  // dominated by (30, 210); the rest are convex.
  const auto passes = make_passes({10, 12, 30, 30, 50, 60}, {100, 1, 99, 10, 5, 1});
  const CodeBlockHull h = convex_hull(passes, 2.0);
  EXPECT_EQ(h.passes, (std::vector<int>{1, 4, 5, 6}));
  EXPECT_EQ(h.bytes, (std::vector<uint32_t>{10, 30, 50, 60}));
  ASSERT_EQ(h.gain.size(), 4u);
  EXPECT_DOUBLE_EQ(h.gain[1], 2.0 * 210);
  EXPECT_DOUBLE_EQ(h.slope[0], 2.0 * 100 / 10);
  EXPECT_DOUBLE_EQ(h.slope[1], 2.0 * 110 / 20);
}

TEST(ConvexHull, RandomCurvesAreConvexAndCoverEveryPoint) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 30);
    std::vector<uint32_t> lengths;
    std::vector<double> gains;
    uint32_t len = 0;
    for (int i = 0; i < n; ++i) {
      len += rng() % 40;
      lengths.push_back(len);
      gains.push_back(static_cast<double>(rng() % 1000) / (1 + i / 3));
    }
    const CodeBlockHull h = convex_hull(make_passes(lengths, gains), 1.0);
    for (size_t k = 1; k < h.slope.size(); ++k) ASSERT_LT(h.slope[k], h.slope[k - 1]) << trial;
    // No pass lies above the hull's piecewise-linear curve.
    double g = 0;
    for (int i = 0; i < n; ++i) {
      g += gains[i];
      double r0 = 0, g0 = 0;
      for (size_t k = 0; k < h.bytes.size(); ++k) {
        if (lengths[i] <= h.bytes[k]) {
          const double bound = h.bytes[k] == r0 ? h.gain[k]
                                                : g0 + (h.gain[k] - g0) * (lengths[i] - r0) / (h.bytes[k] - r0);
          EXPECT_LE(g, bound + 1e-9) << trial << " pass " << i;
          break;
        }
        r0 = h.bytes[k];
        g0 = h.gain[k];
      }
      if (lengths[i] > (h.bytes.empty() ? 0 : h.bytes.back())) {
        EXPECT_LE(g, (h.gain.empty() ? 0 : h.gain.back()) + 1e-9);
      }
    }
  }
}

// Random blocks, and a file size of 50 + the bytes of the chosen passes + a
// byte per block included ("header").
struct Fixture {
  std::vector<std::vector<entropy::CodingPass>> passes;
  std::vector<CodeBlockHull> hulls;
  double initial = 0;
  explicit Fixture(int blocks) {
    std::mt19937 rng(11);
    for (int b = 0; b < blocks; ++b) {
      std::vector<uint32_t> lengths;
      std::vector<double> gains;
      uint32_t len = 0;
      double gain = 5000.0 * (1 + rng() % 10);
      for (int i = 0; i < 13; ++i) {
        len += 1 + rng() % 30;
        lengths.push_back(len);
        gains.push_back(gain);
        initial += gain;
        gain *= 0.3 + 0.4 * (rng() % 100) / 100.0;
      }
      passes.push_back(make_passes(lengths, gains));
      hulls.push_back(convex_hull(passes.back(), 1.0));
    }
  }
  uint64_t size(const std::vector<int>& n) const {
    uint64_t s = 50;
    for (size_t b = 0; b < n.size(); ++b)
      if (n[b] > 0) s += passes[b][n[b] - 1].cumulative_length + 1;
    return s;
  }
  double remaining(const std::vector<int>& n) const {
    double d = initial;
    for (size_t b = 0; b < n.size(); ++b)
      for (int i = 0; i < n[b]; ++i) d -= passes[b][i].distortion_decrease;
    return d;
  }
};

// The hull points sorted on a pool (sort_on_pool) and each block's taken
// points found by block (PointPlaces) give the one-thread allocation, on
// enough blocks that they are sorted in runs and found in pieces, with
// slopes tied between blocks.
TEST(AllocateLayers, PointsSortedOnAPoolGiveTheSameLayers) {
  Fixture f(9000);
  size_t points = 0;
  for (const CodeBlockHull& h : f.hulls) points += h.slope.size();
  ASSERT_GT(points, size_t{1} << 15);
  const BytesOfLayers bytes_of = [&](const LayerPasses& l) -> Result<LayerBytes> {
    return LayerBytes{f.size(l.back()), {}};
  };
  const std::vector<LayerTarget> targets = {{LayerTarget::Kind::kBytes, 40000},
                                            {LayerTarget::Kind::kDistortion, f.initial * 0.01},
                                            {LayerTarget::Kind::kBytes, 150000}};
  ThreadPool pool(5);
  auto one = allocate_layers(f.hulls, targets, f.initial, bytes_of, ComponentCaps{});
  auto on_pool = allocate_layers(f.hulls, targets, f.initial, bytes_of, ComponentCaps{}, &pool);
  ASSERT_TRUE(one.ok() && on_pool.ok());
  EXPECT_EQ(*one, *on_pool);
}

TEST(AllocateLayers, ByteTargetsMetAndLayersGrow) {
  Fixture f(40);
  const std::vector<LayerTarget> targets = {{LayerTarget::Kind::kBytes, 1000},
                                            {LayerTarget::Kind::kBytes, 3000},
                                            {LayerTarget::Kind::kBytes, 6000},
                                            {LayerTarget::Kind::kEverything, 0}};
  auto layers = allocate_layers(f.hulls, targets, f.initial, [&](const LayerPasses& l) -> Result<uint64_t> {
    return f.size(l.back());
  });
  ASSERT_TRUE(layers.ok()) << layers.status().to_string();
  ASSERT_EQ(layers->size(), 4u);
  for (size_t l = 0; l < 3; ++l) {
    const uint64_t s = f.size((*layers)[l]);
    EXPECT_LE(s, targets[l].value) << l;
    EXPECT_GE(s, targets[l].value * 0.99) << l;
  }
  for (size_t l = 1; l < 4; ++l)
    for (size_t b = 0; b < f.hulls.size(); ++b) EXPECT_GE((*layers)[l][b], (*layers)[l - 1][b]);
  for (size_t b = 0; b < f.hulls.size(); ++b) EXPECT_EQ((*layers)[3][b], 13);
  // More bytes, less distortion.
  EXPECT_GT(f.remaining((*layers)[0]), f.remaining((*layers)[1]));
  EXPECT_GT(f.remaining((*layers)[1]), f.remaining((*layers)[2]));
}

TEST(AllocateLayers, DistortionTargetIsTheFewestPoints) {
  Fixture f(30);
  const double target = f.initial * 0.01;
  const std::vector<LayerTarget> targets = {{LayerTarget::Kind::kDistortion, target}};
  auto layers = allocate_layers(f.hulls, targets, f.initial, [&](const LayerPasses& l) -> Result<uint64_t> {
    return f.size(l.back());
  });
  ASSERT_TRUE(layers.ok());
  const std::vector<int>& n = (*layers)[0];
  EXPECT_LE(f.remaining(n), target * (1 + 1e-12));
  // The points are taken in slope order: without the last one taken (the
  // shallowest taken point) the target is missed.
  size_t worst_block = n.size();
  size_t worst_k = 0;
  for (size_t b = 0; b < n.size(); ++b) {
    if (n[b] == 0) continue;
    const CodeBlockHull& h = f.hulls[b];
    size_t k = 0;
    while (h.passes[k] != n[b]) ++k;
    if (worst_block == n.size() || h.slope[k] < f.hulls[worst_block].slope[worst_k]) {
      worst_block = b;
      worst_k = k;
    }
  }
  ASSERT_LT(worst_block, n.size());
  std::vector<int> less = n;
  less[worst_block] = worst_k > 0 ? f.hulls[worst_block].passes[worst_k - 1] : 0;
  EXPECT_GT(f.remaining(less), target);
}

TEST(AllocateLayers, UnreachableTargetGivesAnEmptyLayer) {
  Fixture f(5);
  const std::vector<LayerTarget> targets = {{LayerTarget::Kind::kBytes, 10}};
  auto layers = allocate_layers(f.hulls, targets, f.initial, [&](const LayerPasses& l) -> Result<uint64_t> {
    return f.size(l.back());
  });
  ASSERT_TRUE(layers.ok());
  for (int n : (*layers)[0]) EXPECT_EQ(n, 0);
}

// Component caps: blocks 0..19 are component 0, 20..39 component 1, the
// component's bytes its blocks' bytes and "headers" (the file's 50 left out).
TEST(AllocateLayers, ComponentCapHoldsAndTheOtherComponentTakesTheRoom) {
  Fixture f(40);
  auto component_bytes = [&](const std::vector<int>& n) {
    std::vector<uint64_t> bytes(2, 0);
    for (size_t b = 0; b < n.size(); ++b)
      if (n[b] > 0) bytes[b / 20] += f.passes[b][n[b] - 1].cumulative_length + 1;
    return bytes;
  };
  auto bytes_of = [&](const LayerPasses& l) -> Result<LayerBytes> {
    return LayerBytes{f.size(l.back()), component_bytes(l.back())};
  };
  const std::vector<LayerTarget> file = {{LayerTarget::Kind::kBytes, 4000}};
  auto free = allocate_layers(f.hulls, file, f.initial, bytes_of, ComponentCaps{});
  ASSERT_TRUE(free.ok());
  const std::vector<uint64_t> uncapped = component_bytes((*free)[0]);
  ComponentCaps caps;
  for (int b = 0; b < 40; ++b) caps.block_component.push_back(b / 20);
  const double cap = static_cast<double>(uncapped[0]) * 0.6;
  caps.max_bytes = {cap, 0};
  auto capped = allocate_layers(f.hulls, file, f.initial, bytes_of, caps);
  ASSERT_TRUE(capped.ok()) << capped.status().to_string();
  const std::vector<uint64_t> got = component_bytes((*capped)[0]);
  EXPECT_LE(static_cast<double>(got[0]), cap);
  EXPECT_GT(static_cast<double>(got[0]), cap - 32) << "component 0 stops at its cap, within a pass";
  EXPECT_GT(got[1], uncapped[1]) << "component 1 takes the room component 0 leaves";
  EXPECT_LE(f.size((*capped)[0]), 4000u);

  // With every pass asked for, the caps alone bind; a distortion target
  // cannot be combined with them.
  const std::vector<LayerTarget> all = {{LayerTarget::Kind::kEverything, 0}};
  auto everything = allocate_layers(f.hulls, all, f.initial, bytes_of, caps);
  ASSERT_TRUE(everything.ok());
  EXPECT_LE(static_cast<double>(component_bytes((*everything)[0])[0]), cap);
  for (int b = 20; b < 40; ++b) EXPECT_EQ((*everything)[0][b], 13);
  const std::vector<LayerTarget> psnr = {{LayerTarget::Kind::kDistortion, 1.0}};
  EXPECT_FALSE(allocate_layers(f.hulls, psnr, f.initial, bytes_of, caps).ok());
}

}  // namespace
}  // namespace mallat::codec
