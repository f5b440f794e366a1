// HT planes predicted during a streamed encode's strips
// (codec/encoder/ht_plane_prediction.h): the predicted slope, once every
// block is in, against rate control's own walk over the same hulls; and
// the file byte for byte the same with prediction off, on, forced right
// (the slope rate control chooses: every block's codings kept) and forced
// wrong (slopes far from it: most dropped and coded again), on one thread
// and several, in one tile and in several, past the predicted codings'
// budget and with indices on disk.
#include "codec/encoder/ht_plane_prediction.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "codec/api/encode.h"
#include "codec/encoder/ht_rate.h"
#include "tests/codec/encode_streamed_rows.h"

namespace mallat::codec {
namespace {

// Random hulls of `blocks` blocks at resolutions 0..5, slopes decreasing
// and bytes increasing along each.
std::vector<CodeBlockHull> random_hulls(size_t blocks, std::vector<int>& resolution, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<CodeBlockHull> hulls(blocks);
  resolution.resize(blocks);
  for (size_t b = 0; b < blocks; ++b) {
    resolution[b] = static_cast<int>(rng() % 6);
    double slope = std::ldexp(1.0, static_cast<int>(rng() % 16)) * (1 + (rng() % 1000) / 1000.0);
    uint32_t bytes = 0;
    for (int k = 0, n = 1 + static_cast<int>(rng() % 8); k < n; ++k) {
      bytes += 1 + rng() % 400;
      hulls[b].passes.push_back(k + 1);
      hulls[b].bytes.push_back(bytes);
      hulls[b].slope.push_back(slope);
      hulls[b].gain.push_back(0);
      slope /= 1.2 + (rng() % 100) / 50.0;
    }
  }
  return hulls;
}

// With every block in, the prediction's walk over its bins ends within a
// bin (a few per cent) of the sorted walk's slope.
TEST(HtPlanePrediction, EveryBlockInGivesRateControlsSlope) {
  std::vector<int> resolution;
  const std::vector<CodeBlockHull> hulls = random_hulls(3000, resolution, 5);
  double bytes = 0;
  for (const CodeBlockHull& h : hulls) bytes += h.bytes.back();
  for (double share : {0.1, 0.4, 0.8}) {
    HtPlanePrediction::Setup setup;
    setup.target_bytes = bytes * share;
    setup.image_samples = 3000.0 * 4096;
    HtPlanePrediction prediction(setup);
    for (size_t b = 0; b < hulls.size(); ++b) prediction.expect(resolution[b], 4096);
    EXPECT_FALSE(prediction.slope().has_value());
    for (size_t b = 0; b < hulls.size(); ++b) {
      std::vector<HtPlanePrediction::HullPoint> points;
      for (size_t k = 0; k < hulls[b].slope.size(); ++k) points.push_back({hulls[b].slope[k], hulls[b].bytes[k]});
      prediction.add(points, resolution[b], 4096);
    }
    const double sorted =
        estimated_slope_by_sorting(hulls, LayerTarget{LayerTarget::Kind::kBytes, setup.target_bytes}, 0);
    const std::optional<double> predicted = prediction.slope();
    ASSERT_TRUE(predicted.has_value());
    EXPECT_NEAR(*predicted / sorted, 1.0, 0.05) << share;
  }
}

// The codings a block keeps are those code_ht_planes would make, the rest
// coded then: the same file however the prediction went.
TEST(HtPlanePrediction, StreamedFileIsTheSameWhateverWasPredicted) {
  const Image image = test_image(1100, 1000, 3, 8, false, 33);
  struct Target {
    std::string what;
    bool reversible;
    EncodeOptions::RateKind kind;
    double value;
  };
  const std::vector<Target> targets = {
      {"9/7 -r 20", false, EncodeOptions::RateKind::kRatio, 20},
      {"9/7 --bpp 1", false, EncodeOptions::RateKind::kBitsPerPixel, 1},
      {"5/3 -r 40", true, EncodeOptions::RateKind::kRatio, 40},
      {"9/7 -r 20, 512x384 tiles", false, EncodeOptions::RateKind::kRatio, 20},
  };
  for (const Target& t : targets) {
    EncodeOptions o = options();
    o.xcb = o.ycb = 5;  // blocks enough to wait for a slope, and to pass the budgets
    if (t.what.find("tiles") != std::string::npos) {
      // Each tile's blocks predicted from those of the tiles before it too.
      o.tile_width = 512;
      o.tile_height = 384;
    }
    o.style.ht = true;
    o.reversible = t.reversible;
    o.rate_kind = t.kind;
    o.rate_values = {t.value};
    o.ht_prediction = EncodeOptions::HtPrediction::kOff;
    EncodeReport off_report;
    const auto off = streamed(image, o, &off_report);
    ASSERT_TRUE(off.ok()) << t.what << ": " << off.status().message();
    EXPECT_EQ(off_report.ht_predicted_blocks, 0u) << t.what;
    ASSERT_GT(off_report.ht_slope, 0) << t.what;
    struct Case {
      std::string what;
      double slope;  // 0: predicted
      int threads;
      uint64_t budget;
    };
    const double right = off_report.ht_slope;
    const uint64_t plenty = uint64_t{256} << 20;
    const std::vector<Case> cases = {
        {"predicted", 0, 1, plenty},         {"predicted", 0, 5, plenty},
        {"right", right, 3, plenty},         {"too steep", right * 64, 3, plenty},
        {"too shallow", right / 64, 3, plenty}, {"a little off", right * 1.3, 2, plenty},
        {"past the budgets", 0, 3, 300000}, {"indices on disk", 0, 3, 0},
    };
    for (const Case& c : cases) {
      o.ht_prediction = EncodeOptions::HtPrediction::kOn;
      o.ht_predicted_slope = c.slope;
      o.threads = c.threads;
      o.coded_memory_budget = c.budget;
      EncodeReport report;
      const auto on = streamed(image, o, &report);
      const std::string what = t.what + ", " + c.what + ", " + std::to_string(c.threads) + " threads";
      ASSERT_TRUE(on.ok()) << what << ": " << on.status().message();
      EXPECT_TRUE(*on == *off) << what << ": " << on->size() << " bytes, " << off->size() << " without prediction";
      // A block whose indices went to disk waits for the choice.
      if (c.budget > 0) {
        EXPECT_GT(report.ht_predicted_blocks, 0u) << what;
      }
      if (c.what == "right") {
        EXPECT_EQ(report.ht_predicted_right, report.ht_predicted_blocks) << what;
      }
      if (c.what == "too steep") {
        EXPECT_LT(report.ht_predicted_right, report.ht_predicted_blocks / 2) << what;
      }
    }
  }
}

}  // namespace
}  // namespace mallat::codec
