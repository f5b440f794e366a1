// HT rate control by estimates on the device runner
// (codec/stages/cuda/device_ht_rate.h): an HT encode under a size or
// quality target (-I -r 20, --bpp 1, -q 40, and -r 8 on the 5/3) of a
// one-tile image keeps its tile on the device, the statistics gathered
// there and each round of rate control's coding coded there from the kept
// indices, and writes the CPU path's codestream byte for byte; a device
// failure at quantisation or at any round sends the tile to the CPU runner
// with the same bytes; a batch's lanes sharing fewer slots than they are
// never wait for ever. Labelled gpu: without a device each test skips and
// says why.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "codec/codec.h"
#include "codec/encoder/encode_call.h"
#include "codec/stages/device_tile_stages.h"
#include "common/image.h"
#include "io/image_io.h"
#include "tests/entropy_cuda/cuda_cases.h"
#include "tests/stored_image.h"
#include "tests/testdata.h"

namespace mallat::codec {
namespace {

EncodeOptions ht_target(EncodeOptions::RateKind kind, double value, bool reversible = false) {
  EncodeOptions o;
  o.threads = 4;
  o.style.ht = true;
  o.reversible = reversible;
  o.rate_kind = kind;
  o.rate_values = {value};
  return o;
}

// w x h samples of `image` from (x0, y0), every component.
Image crop(const Image& image, int64_t x0, int64_t y0, int64_t w, int64_t h) {
  Image out = make_image(w, h, image.num_components(), image.components[0].precision, false).value();
  for (int c = 0; c < image.num_components(); ++c) {
    const Component& from = image.components[c];
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        out.components[c].samples[y * w + x] = from.samples[(y0 + y) * from.width + x0 + x];
  }
  return out;
}

// A real photograph's crop and a synthetic image, at each target.
std::vector<Case> ht_cases(const Image& photo) {
  using Kind = EncodeOptions::RateKind;
  const Image synthetic = photo_like(301, 203, 3, 8, 41);
  const Image real = crop(photo, 97, 61, 384, 256);
  std::vector<Case> all;
  const std::vector<std::pair<std::string, const Image*>> images{{"photo crop", &real}, {"synthetic", &synthetic}};
  for (const auto& [what, image_of] : images) {
    const Image& image = *image_of;
    all.push_back({what + " -I -r 20", image, ht_target(Kind::kRatio, 20)});
    all.push_back({what + " -I --bpp 1", image, ht_target(Kind::kBitsPerPixel, 1.0)});
    all.push_back({what + " -I -q 40", image, ht_target(Kind::kPsnr, 40)});
    all.push_back({what + " -r 8 (5/3)", image, ht_target(Kind::kRatio, 8, true)});
  }
  // A small target: rate control codes the blocks a plane further in
  // rounds of its own.
  all.push_back({"photo crop -I --bpp 0.1", real, ht_target(Kind::kBitsPerPixel, 0.1)});
  EncodeOptions estimated = ht_target(Kind::kRatio, 20);
  estimated.ht_rate = EncodeOptions::HtRate::kEstimated;
  all.push_back({"synthetic -I -r 20 --ht-rate estimated", synthetic, estimated});
  return all;
}

int device_notes(const EncodeReport& report) {
  return static_cast<int>(std::count_if(report.notes.begin(), report.notes.end(), [](const std::string& n) {
    return n.find("the device failed") != std::string::npos;
  }));
}

// Each case with the device runner: the CPU path's bytes, the tile on the
// device (counted there, no failure noted).
TEST(HtRateCuda, TargetsOnTheDeviceWriteTheCpuPathsBytes) {
  SKIP_WITHOUT_DEVICE();
  MALLAT_REQUIRE_TESTDATA("images/Bretagne1.ppm");
  const auto photo = io::read_image(mallat::testing::testdata_dir() / "images" / "Bretagne1.ppm");
  ASSERT_TRUE(photo.ok()) << photo.status().message();
  for (const Case& c : ht_cases(*photo)) {
    auto device = make_device_tile_context();
    ASSERT_TRUE(device.ok()) << device.status().message();
    CallResources whole;
    whole.device_tiles = *device;
    const auto want = encode(c.image, c.options);
    EncodeReport report;
    const auto got = encode(c.image, c.options, whole, &report);
    ASSERT_TRUE(want.ok()) << c.name << ": " << want.status().message();
    ASSERT_TRUE(got.ok()) << c.name << ": " << got.status().message();
    EXPECT_TRUE(*want == *got) << c.name << ": " << want->size() << " bytes on the CPU, " << got->size()
                               << " with the tile on the device";
    EXPECT_GE(device_tile_times(**device).tiles, 1u) << c.name;
    EXPECT_EQ(device_notes(report), 0) << c.name;
    EXPECT_TRUE(device_tile_failure(**device).ok()) << c.name;
    // The samples at their stored width, as a batch on the device reads
    // them: uploaded as they are, the same bytes.
    const auto stored = encode(mallat::testing::as_stored(c.image), c.options, whole, nullptr);
    ASSERT_TRUE(stored.ok()) << c.name << ", stored samples: " << stored.status().message();
    EXPECT_TRUE(*want == *stored) << c.name << ", stored samples";
  }
}

// A failure injected after k device steps that pass (with none passed, the
// stages to quantisation with the statistics fail; after k, rate control's
// k-th round of coding) sends the tile to the CPU runner there: the CPU
// path's bytes, one note. The steps a case makes are those whose failure is
// noted: every case codes at least one round on the device, and some two
// rounds and more (the estimates' second choice, or the blocks a plane
// further).
TEST(HtRateCuda, AFailureAtAnyStepGivesTheCpuPathsBytes) {
  SKIP_WITHOUT_DEVICE();
  MALLAT_REQUIRE_TESTDATA("images/Bretagne1.ppm");
  const auto photo = io::read_image(mallat::testing::testdata_dir() / "images" / "Bretagne1.ppm");
  ASSERT_TRUE(photo.ok()) << photo.status().message();
  int most_runs = 0;
  for (const Case& c : ht_cases(*photo)) {
    const auto want = encode(c.image, c.options);
    ASSERT_TRUE(want.ok()) << c.name;
    int runs = 0;
    for (int k = 0; k < 12; ++k) {
      auto device = make_device_tile_context();
      ASSERT_TRUE(device.ok()) << device.status().message();
      CallResources whole;
      whole.device_tiles = *device;
      inject_device_tile_failures(**device, 1, k);
      EncodeReport report;
      const auto got = encode(c.image, c.options, whole, &report);
      const std::string what = c.name + ", failure after " + std::to_string(k) + " runs";
      ASSERT_TRUE(got.ok()) << what << ": " << got.status().message();
      EXPECT_TRUE(*want == *got) << what;
      const int noted = device_notes(report);
      EXPECT_LE(noted, 1) << what;
      EXPECT_EQ(noted == 1, !device_tile_failure(**device).ok()) << what;
      if (noted == 0) break;
      runs = k + 1;
    }
    EXPECT_GE(runs, 2) << c.name << ": quantisation and at least one round on the device";
    most_runs = std::max(most_runs, runs);
  }
  EXPECT_GE(most_runs, 3);
}

// A batch's lanes share fewer slots than they are (2 slots, 4 lanes, each
// tile holding its slot through rate control): every codestream the CPU
// path's, none waiting for ever; an image of several tiles (whose tiles
// the rule leaves to the CPU under a target) among them.
TEST(HtRateCuda, LanesHoldingSlotsThroughRateControlFinish) {
  SKIP_WITHOUT_DEVICE();
  const std::shared_ptr<DeviceTileContext> shared = start_device_tile_context(2, 2);
  ASSERT_TRUE(wait_started(*shared).ok());
  using Kind = EncodeOptions::RateKind;
  std::vector<Case> all;
  all.push_back({"-I -r 20", photo_like(250, 170, 3, 8, 51), ht_target(Kind::kRatio, 20)});
  all.push_back({"-I --bpp 1", photo_like(190, 230, 3, 8, 52), ht_target(Kind::kBitsPerPixel, 1)});
  all.push_back({"-I -q 40", photo_like(200, 150, 3, 8, 53), ht_target(Kind::kPsnr, 40)});
  EncodeOptions tiled = ht_target(Kind::kRatio, 20);
  tiled.tile_width = tiled.tile_height = 100;
  all.push_back({"-I -r 20 tiles 100x100", photo_like(300, 200, 3, 8, 54), tiled});
  const std::vector<std::string> wrong = lanes_differing(all, shared);
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(wrong[i], "") << all[i].name;
  // The one-tile images' tiles went to the device.
  EXPECT_GE(device_tile_times(*shared).tiles, 9u);
  EXPECT_TRUE(device_tile_failure(*shared).ok());
}

}  // namespace
}  // namespace mallat::codec
