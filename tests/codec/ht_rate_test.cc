// HT rate control by estimates (codec/encoder/ht_rate.h, the default
// EncodeOptions::HtRate::kEstimated) against coding every plane
// (kEveryPlane) on the shared photographs: its files decode, land within 1%
// under a size target, and lose at most 0.1 dB of PSNR against every plane's
// at the same size; a PSNR target is met as closely; the bytes do not
// depend on the threads; the streamed encode refuses it and takes every
// plane's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "codec/api/encode_streamed.h"
#include "codec/codec.h"
#include "codec/codestream/codestream_reader.h"
#include "codec/encoder/finer_steps.h"
#include "codec/encoder/ht_rate.h"
#include "common/metrics.h"
#include "io/image_io.h"
#include "tests/testdata.h"

namespace mallat::codec {
namespace {

EncodeOptions ht_options(EncodeOptions::RateKind kind, double value, bool reversible = false) {
  EncodeOptions o;
  o.style.ht = true;
  o.reversible = reversible;
  o.rate_kind = kind;
  o.rate_values = {value};
  o.threads = 2;
  return o;
}

double psnr_of(const Image& image, const std::vector<uint8_t>& file) {
  auto decoded = decode(file, {}, nullptr);
  EXPECT_TRUE(decoded.ok()) << decoded.status().to_string();
  if (!decoded.ok()) return 0;
  auto cmp = compare_images(image, *decoded);
  EXPECT_TRUE(cmp.ok());
  return cmp.ok() ? cmp->overall.psnr : 0;
}

// The shared photograph `name` into `out`; the test fails without it.
void read_photo(const char* name, Image& out) {
  MALLAT_REQUIRE_TESTDATA("images");
  auto image = io::read_image(mallat::testing::testdata_dir() / "images" / name);
  ASSERT_TRUE(image.ok()) << name << ": " << image.status().to_string();
  out = std::move(image).value();
}

// Within 1% under the target, as PCRD lands.
void expect_within_target(size_t bytes, double target, const std::string& what) {
  EXPECT_LE(bytes, target) << what;
  EXPECT_GE(bytes, 0.99 * target) << what;
}

// Each photo at sizes from 0.25 to 2 bits per pixel (and -r on the
// reversible path): the size within 1% under the target, the PSNR within
// 0.1 dB of every plane's.
TEST(HtRateEstimated, WithinTheTargetAndNearEveryPlane) {
  struct Case {
    EncodeOptions::RateKind kind;
    double value;
    bool reversible;
  };
  const Case cases[] = {{EncodeOptions::RateKind::kBitsPerPixel, 0.25, false},
                        {EncodeOptions::RateKind::kBitsPerPixel, 1.0, false},
                        {EncodeOptions::RateKind::kBitsPerPixel, 2.0, false},
                        {EncodeOptions::RateKind::kRatio, 20.0, false},
                        {EncodeOptions::RateKind::kRatio, 8.0, true}};
  for (const char* name : {"Bretagne1.ppm", "Cevennes2.ppm", "Rome.bmp"}) {
    Image image;
    ASSERT_NO_FATAL_FAILURE(read_photo(name, image));
    const double pixels = static_cast<double>(image.width()) * static_cast<double>(image.height());
    for (const Case& c : cases) {
      const std::string what = std::string(name) + (c.kind == EncodeOptions::RateKind::kRatio ? " -r " : " --bpp ") +
                               std::to_string(c.value) + (c.reversible ? " 5/3" : " 9/7");
      const double target = c.kind == EncodeOptions::RateKind::kRatio ? std::floor(pixels * 24 / 8 / c.value)
                                                                       : std::floor(c.value * pixels / 8);
      EncodeOptions o = ht_options(c.kind, c.value, c.reversible);
      auto estimated = encode(image, o);
      ASSERT_TRUE(estimated.ok()) << what << ": " << estimated.status().to_string();
      o.ht_rate = EncodeOptions::HtRate::kEveryPlane;
      auto every = encode(image, o);
      ASSERT_TRUE(every.ok()) << what << ": " << every.status().to_string();
      EXPECT_NE(*estimated, *every) << what << ": the two modes should code differently";
      expect_within_target(estimated->size(), target, what);
      EXPECT_GE(psnr_of(image, *estimated), psnr_of(image, *every) - 0.1) << what;
    }
  }
}

// A smooth grey image of `precision` bits: slow waves, a few hundred
// discs of random size and height, a little noise. Coded at fine planes,
// its significant quads are sparse, which the byte model (fitted on
// photographs) undercounts.
Image smooth_image(int precision) {
  constexpr int kSide = 512;
  std::mt19937 random(7);
  const auto uniform = [&random](double low, double high) {
    return low + (high - low) * static_cast<double>(random() % 1000000) / 1000000.0;
  };
  std::vector<double> level(kSide * kSide);
  for (int y = 0; y < kSide; ++y)
    for (int x = 0; x < kSide; ++x) level[y * kSide + x] = 0.5 + 0.2 * std::sin(x * 0.011 + y * 0.007);
  for (int k = 0; k < 200; ++k) {
    const double cx = uniform(0, kSide), cy = uniform(0, kSide), r = uniform(1.5, 12), height = uniform(-0.15, 0.15);
    for (int y = std::max(0, static_cast<int>(cy - r)); y <= std::min(kSide - 1, static_cast<int>(cy + r)); ++y)
      for (int x = std::max(0, static_cast<int>(cx - r)); x <= std::min(kSide - 1, static_cast<int>(cx + r)); ++x)
        if ((x - cx) * (x - cx) + (y - cy) * (y - cy) < r * r) level[y * kSide + x] += height;
  }
  Image image;
  Component& c = image.components.emplace_back();
  c.width = kSide;
  c.height = kSide;
  c.precision = precision;
  const double most = c.max_value();
  // Noise of two 12-bit steps, whatever the precision.
  const double noise = 2.0 * most / 4095.0;
  c.samples.resize(kSide * kSide);
  for (size_t i = 0; i < c.samples.size(); ++i)
    c.samples[i] = static_cast<int32_t>(std::clamp(level[i] * most + uniform(-noise, noise), 0.0, most));
  return image;
}

// On the smooth image: at 1 bit per pixel its chosen cleanups come out
// about 15% larger than estimated (the planes are chosen again); at 6, of
// 16 bits, its low-pass blocks' energies in index units are so large that
// a float decrease held the decreases between fine planes as nothing. The size within 1% under
// the target, the PSNR within 0.15 dB of every plane's (without those two
// fixes: 6 and 1.4 dB under).
TEST(HtRateEstimated, SparseSignificanceNearEveryPlane) {
  const std::pair<int, double> cases[] = {{12, 1.0}, {16, 1.0}, {16, 6.0}};
  for (const auto& [precision, bpp] : cases) {
    const Image image = smooth_image(precision);
    const std::string what = std::to_string(precision) + " bits, --bpp " + std::to_string(bpp);
    EncodeOptions o = ht_options(EncodeOptions::RateKind::kBitsPerPixel, bpp);
    auto estimated = encode(image, o);
    ASSERT_TRUE(estimated.ok()) << what << ": " << estimated.status().to_string();
    o.ht_rate = EncodeOptions::HtRate::kEveryPlane;
    auto every = encode(image, o);
    ASSERT_TRUE(every.ok()) << what << ": " << every.status().to_string();
    expect_within_target(estimated->size(), std::floor(bpp * 512 * 512 / 8), what);
    EXPECT_GE(psnr_of(image, *estimated), psnr_of(image, *every) - 0.15) << what;
  }
}

// -q: the decode checked and the target corrected by meet_psnr_targets, the
// PSNR lands within 0.15 dB of the target (fewer points than every plane's
// can leave a target between two of them, which that correction, in
// proportion to the miss, need not cross: Cevennes2 at 32 dB lands 0.11 dB
// under).
TEST(HtRateEstimated, PsnrTargetMet) {
  Image image;
  ASSERT_NO_FATAL_FAILURE(read_photo("Cevennes2.ppm", image));
  for (double db : {32.0, 36.0, 40.0}) {
    auto file = encode(image, ht_options(EncodeOptions::RateKind::kPsnr, db));
    ASSERT_TRUE(file.ok()) << file.status().to_string();
    EXPECT_NEAR(psnr_of(image, *file), db, 0.15) << db;
  }
}

// The planes chosen and coded do not depend on how many threads code them.
TEST(HtRateEstimated, BytesDoNotDependOnThreads) {
  Image image;
  ASSERT_NO_FATAL_FAILURE(read_photo("Bretagne1.ppm", image));
  EncodeOptions o = ht_options(EncodeOptions::RateKind::kBitsPerPixel, 0.7);
  o.threads = 1;
  auto one = encode(image, o);
  o.threads = 4;
  auto four = encode(image, o);
  ASSERT_TRUE(one.ok() && four.ok());
  EXPECT_EQ(*one, *four);
}

// The slope found in bins of nearby slopes is the one a walk over every
// point sorted finds, on hulls with tied slopes (ties go by block, then by
// point), slopes over many octaves, and targets from none to all of it, on
// one thread and on several.
TEST(HtRateEstimated, BinnedSlopeIsTheSortedOne) {
  std::mt19937 random(7);
  std::vector<CodeBlockHull> hulls(3000);
  uint64_t total = 0;
  for (CodeBlockHull& h : hulls) {
    const int points = static_cast<int>(random() % 9);
    double slope = std::ldexp(1.0 + (random() % 4) / 4.0, static_cast<int>(random() % 40) - 10);
    uint32_t bytes = 0;
    double gain = 0;
    for (int k = 0; k < points; ++k) {
      const uint32_t more = 1 + random() % 300;
      bytes += more;
      gain += slope * more;
      h.passes.push_back(k + 1);
      h.bytes.push_back(bytes);
      h.gain.push_back(gain);
      h.slope.push_back(slope);
      slope /= 1.0 + (random() % 3) / 2.0;
    }
    total += bytes;
  }
  ThreadPool pool(3);
  for (double share : {0.0, 0.001, 0.2, 0.5, 0.77, 0.999, 1.0, 2.0}) {
    const LayerTarget target{LayerTarget::Kind::kBytes, std::floor(share * static_cast<double>(total))};
    const double sorted = estimated_slope_by_sorting(hulls, target, 0);
    EXPECT_EQ(estimated_slope(hulls, target, 0, nullptr), sorted) << share;
    EXPECT_EQ(estimated_slope(hulls, target, 0, &pool), sorted) << share;
  }
}

// The error left where a byte target is met on estimated hulls: all of it
// with no bytes, all less every block's whole estimated decrease with
// every byte, less as the target grows, and the same on any threads.
TEST(HtRateEstimated, DistortionLeftFallsWithTheTarget) {
  std::mt19937 random(5);
  std::vector<entropy::HtPlaneEstimate> estimates(2000);
  std::vector<const entropy::HtPlaneEstimate*> at;
  std::vector<double> weights;
  double initial = 0, removable = 0, total_bytes = 0;
  std::vector<int32_t> indices(32 * 32);
  for (entropy::HtPlaneEstimate& e : estimates) {
    const int top = 1 + static_cast<int>(random() % 12);
    for (int32_t& q : indices) {
      const int32_t m = static_cast<int32_t>(random() % (1u << (random() % static_cast<unsigned>(top))));
      q = random() % 2 ? -m : m;
    }
    entropy::HtPlaneStatistics statistics;
    entropy::gather_ht_plane_statistics_reference(PlaneView<const int32_t>{indices.data(), 32, 32, 32}, 2,
                                                  statistics);
    e = entropy::estimate_ht_planes(statistics, 2);
    at.push_back(&e);
    weights.push_back(std::ldexp(1.0, static_cast<int>(random() % 8)));
    initial += e.energy * weights.back();
    if (e.planes > 0) {
      removable += std::max(0.0, e.decrease(0)) * weights.back();
      total_bytes += 4 * e.bytes[0];
    }
  }
  ThreadPool pool(3);
  const auto left = [&](double bytes, ThreadPool* on) {
    return estimated_distortion_left(at, weights, LayerTarget{LayerTarget::Kind::kBytes, bytes}, initial, on);
  };
  EXPECT_EQ(left(0, nullptr), initial);
  EXPECT_NEAR(left(1e12, nullptr), initial - removable, 1e-9 * initial);
  double before = initial;
  for (double share : {0.01, 0.05, 0.1, 0.3}) {
    const double now = left(share * total_bytes, nullptr);
    EXPECT_LT(now, before) << share;
    EXPECT_EQ(left(share * total_bytes, &pool), now) << share;
    before = now;
  }
}

// Under a size target with HtRate::kEstimatedSteps the blocks are estimated
// at the nominal steps and at steps 2^-1/2 times as large, and the steps
// whose estimates leave less error are coded (finer_steps.h); the default
// (kAuto, kEstimated) codes the nominal steps. On the photos at 0.25 to 2 bits per
// pixel each is taken somewhere (the PSNR a base step reaches moves with
// the image and the rate); a file at the finer steps signals those of
// the finer base step (the QCD of an encode at that scale) and lies within
// 1% under its target as any does.
TEST(HtRateEstimated, FinerStepsTakenWhereTheyLeaveLessError) {
  int finer_taken = 0, cases = 0;
  for (const char* name : {"Bretagne1.ppm", "Cevennes2.ppm", "Rome.bmp"}) {
    Image image;
    ASSERT_NO_FATAL_FAILURE(read_photo(name, image));
    const double pixels = static_cast<double>(image.width()) * static_cast<double>(image.height());
    for (double bpp : {0.25, 0.5, 1.0, 2.0}) {
      const std::string what = std::string(name) + " --bpp " + std::to_string(bpp);
      EncodeOptions o = ht_options(EncodeOptions::RateKind::kBitsPerPixel, bpp);
      auto plain = encode(image, o);
      o.ht_rate = EncodeOptions::HtRate::kEstimatedSteps;
      auto file = encode(image, o);
      ASSERT_TRUE(plain.ok() && file.ok()) << what << ": " << file.status().to_string();
      expect_within_target(file->size(), std::floor(bpp * pixels / 8), what);
      // The QCDs of the two base steps, from encodes that code every plane.
      o.ht_rate = EncodeOptions::HtRate::kEveryPlane;
      auto nominal = encode(image, o);
      o.base_step_scale = kFinerBaseStep;
      auto finer = encode(image, o);
      ASSERT_TRUE(nominal.ok() && finer.ok()) << what;
      auto q = parse_main_header(*file), qn = parse_main_header(*nominal), qf = parse_main_header(*finer);
      ASSERT_TRUE(q.ok() && qn.ok() && qf.ok()) << what;
      const auto steps = [](const MainHeader& m) {
        std::vector<std::pair<int, int>> s;
        for (const StepSize& st : m.qcd.steps) s.emplace_back(st.exponent, st.mantissa);
        return s;
      };
      ASSERT_NE(steps(*qn), steps(*qf)) << what;
      auto qp = parse_main_header(*plain);
      ASSERT_TRUE(qp.ok()) << what;
      EXPECT_EQ(steps(*qp), steps(*qn)) << what << ": the default keeps the nominal steps";
      const bool taken = steps(*q) == steps(*qf);
      EXPECT_TRUE(taken || steps(*q) == steps(*qn)) << what;
      finer_taken += taken ? 1 : 0;
      ++cases;
    }
  }
  EXPECT_GT(finer_taken, 0);
  EXPECT_LT(finer_taken, cases);
}

// Several tiles share one slope: each tile's blocks are chosen from every
// tile's estimates, and the file still meets its target.
TEST(HtRateEstimated, TilesShareTheTarget) {
  Image image;
  ASSERT_NO_FATAL_FAILURE(read_photo("Rome.bmp", image));
  EncodeOptions o = ht_options(EncodeOptions::RateKind::kRatio, 30.0);
  o.tile_width = 256;
  o.tile_height = 256;
  auto file = encode(image, o);
  ASSERT_TRUE(file.ok()) << file.status().to_string();
  expect_within_target(file->size(), std::floor(640.0 * 480 * 3 / 30.0), "tiles");
}

// The streamed encode keeps each block's indices until the planes are
// chosen (kept_indices.h): every mode streams, at any size
// (encode_streamed_test.cc compares its bytes with encode()'s).
TEST(HtRateEstimated, StreamedEncodeTakesEveryMode) {
  Image large;
  large.components.resize(3);
  for (Component& c : large.components) {
    c.width = 8192;
    c.height = 8192;
    c.precision = 8;
  }
  for (int components : {3, 1}) {
    large.components.resize(static_cast<size_t>(components));
    for (auto mode : {EncodeOptions::HtRate::kAuto, EncodeOptions::HtRate::kEstimated,
                      EncodeOptions::HtRate::kEveryPlane}) {
      EncodeOptions o = ht_options(EncodeOptions::RateKind::kRatio, 10.0);
      o.ht_rate = mode;
      EXPECT_EQ(why_not_streamed(large, o), "") << components;
    }
  }
}

}  // namespace
}  // namespace mallat::codec
