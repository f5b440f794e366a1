// The device runner's plan (codec/stages/device_tile_plan.h), checked on the
// CPU: its gather jobs, run on the host over the CPU runner's DWT output
// laid out as the plan says, give each code-block the samples the CPU codes,
// and Tier-1 on them gives the CPU runner's bytes; its Tier-1 jobs carry
// the blocks' parameters; the tiles it does not cover say why; a runner
// whose device is starting, or cannot start, leaves tiles on the CPU.
#include "codec/stages/device_tile_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "codec/api/encode.h"
#include "codec/stages/device_tile_stages.h"
#include "codec/stages/tile_stages.h"
#include "common/image.h"
#include "dwt/geometry.h"

namespace mallat::codec {
namespace {

// A 4-component image whose tile starts inside it (the samples are read
// from an offset, on rows of the image's width): components 0..2 under the
// RCT, the fourth 12-bit signed without it.
struct Scene {
  Image image;
  dwt::Rect rect{5, 2, 5 + 53, 2 + 38};  // odd origin and sizes
  int levels = 3;
  int64_t sx = 9, sy = 4;                 // where the tile's samples start in each component

  Scene() {
    image = make_image(70, 50, 4, 8, false).value();
    image.components[3].precision = 12;
    image.components[3].is_signed = true;
    std::mt19937 rng(7);
    for (int c = 0; c < 4; ++c) {
      const int32_t lo = image.components[c].min_value(), hi = image.components[c].max_value();
      for (int32_t& v : image.components[c].samples) v = lo + static_cast<int32_t>(rng() % (hi - lo + 1));
    }
  }

  // 13x11 code-blocks over every subband of each plane's packed layout;
  // with the 9/7, a step per subband and fraction bits as the encoder sets
  // them (tile_encoder.cc), some steps small enough to clip.
  EncodeTile tile(bool allocate, dwt::Wavelet wavelet = dwt::Wavelet::k53) const {
    EncodeTile t;
    t.image = &image;
    t.colour_transform = true;
    for (int c = 0; c < 4; ++c) {
      TilePlane plane;
      plane.rect = rect;
      plane.levels = levels;
      plane.wavelet = wavelet;
      if (allocate) plane.allocate();
      t.planes.push_back(std::move(plane));
      t.source_x.push_back(sx);
      t.source_y.push_back(sy);
      auto cut = [&](const dwt::Rect& band, dwt::Band orientation) {
        for (int64_t y = band.y0; y < band.y1; y += 11) {
          for (int64_t x = band.x0; x < band.x1; x += 13) {
            EncodeBlock b;
            b.place = {c, x, y, std::min<int64_t>(13, band.x1 - x), std::min<int64_t>(11, band.y1 - y)};
            b.orientation = static_cast<entropy::BandOrientation>(orientation);
            b.num_bitplanes = 17;
            if (wavelet == dwt::Wavelet::k97) {
              const int k = static_cast<int>(t.blocks.size());
              b.num_bitplanes = 6 + k % 5;
              b.step = k % 7 == 0 ? 0.01 : 0.37 + 0.11 * (k % 4);
              b.fraction_bits = std::clamp(31 - b.num_bitplanes, 0, 8);
            }
            t.blocks.push_back(b);
          }
        }
      };
      cut(dwt::packed_subband_rect(rect, levels, levels, dwt::Band::kLL), dwt::Band::kLL);
      for (int nb = levels; nb >= 1; --nb)
        for (dwt::Band band : {dwt::Band::kHL, dwt::Band::kLH, dwt::Band::kHH})
          cut(dwt::packed_subband_rect(rect, levels, nb, band), band);
    }
    return t;
  }
};

TEST(DeviceTilePlan, GathersWhatTheCpuRunnerCodes) {
  const Scene scene;
  ThreadPool pool(2);
  auto cpu_dwt = dwt::make_backend(dwt::BackendKind::kCpu, 2).value();
  const std::unique_ptr<TileStages> cpu = make_cpu_tile_stages(pool, *cpu_dwt);
  EncodeTile want = scene.tile(true);
  ASSERT_TRUE(cpu->forward(ForwardStage::kComponentTransform, ForwardStage::kQuantisation, want).ok());

  const EncodeTile bare = scene.tile(false);  // the device's tile: no host planes
  ASSERT_EQ(device_tile_unsupported(bare), "");
  const Result<DeviceTilePlan> plan = plan_device_tile(bare);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ASSERT_EQ(plan->plane_offset.size(), 4u);
  // Rows of 64 samples (53 rounded up to 128 bytes), planes on 256 bytes.
  EXPECT_EQ(plan->plane_pitch[3], 64);
  EXPECT_EQ(plan->plane_offset[1], uint64_t{64 * 38});
  EXPECT_EQ(plan->plane_samples, uint64_t{4 * 64 * 38});
  EXPECT_EQ(plan->scratch_pitch[0], 32);  // 27 samples of the first LL band
  EXPECT_EQ(plan->scratch_samples, uint64_t{32 * 19});
  // The DWT's output as the device holds it: the planes one after another,
  // in rows of their pitch (padding poisoned).
  std::vector<int32_t> planes(plan->plane_samples, INT32_MAX);
  for (size_t c = 0; c < 4; ++c) {
    const PlaneView<int32_t> from = want.planes[c].ints();
    for (int64_t y = 0; y < from.height; ++y)
      std::memcpy(planes.data() + plan->plane_offset[c] + y * plan->plane_pitch[c], from.row(y), from.width * 4);
  }
  std::vector<int32_t> coefficients(plan->t1.coefficients, INT32_MIN);
  ASSERT_EQ(plan->gather.size(), want.blocks.size());
  for (const GatherJob& job : plan->gather) gather_on_host(job, planes.data(), coefficients.data());

  // The CPU runner's Tier-1 on its own planes.
  ASSERT_TRUE(cpu->forward(ForwardStage::kBlockCoding, ForwardStage::kBlockCoding, want).ok());
  for (size_t i = 0; i < want.blocks.size(); ++i) {
    const EncodeBlock& b = want.blocks[i];
    const entropy::T1DeviceJob& job = plan->t1.jobs[i];
    ASSERT_EQ(job.width, b.place.width);
    ASSERT_EQ(job.height, b.place.height);
    EXPECT_EQ(job.orientation, static_cast<uint8_t>(b.orientation));
    EXPECT_EQ(job.num_bitplanes, b.num_bitplanes);
    const PlaneView<const int32_t> gathered{coefficients.data() + job.coefficient_offset, job.width, job.height,
                                            job.width};
    const PlaneView<const int32_t> placed = b.place.in(PlaneView<const int32_t>(want.planes[b.place.component].ints()));
    for (int64_t y = 0; y < job.height; ++y)
      for (int64_t x = 0; x < job.width; ++x) ASSERT_EQ(gathered.row(y)[x], placed.row(y)[x]) << "block " << i;
    const entropy::EncodedCodeBlock coded =
        entropy::encode_code_block(gathered, b.orientation, b.num_bitplanes, b.style, b.fraction_bits).value();
    EXPECT_EQ(coded.data, want.coded[i].data) << "block " << i;
    EXPECT_EQ(coded.num_passes, want.coded[i].num_passes) << "block " << i;
  }
}

// The 9/7: the plan's quantising jobs, run on the host over the CPU
// runner's DWT output, give each block the values and the findings
// (clipped samples, energy) of the CPU's quantisation, bit for bit.
TEST(DeviceTilePlan, QuantisesAsTheCpuRunner) {
  const Scene scene;
  ThreadPool pool(2);
  auto cpu_dwt = dwt::make_backend(dwt::BackendKind::kCpu, 2).value();
  const std::unique_ptr<TileStages> cpu = make_cpu_tile_stages(pool, *cpu_dwt);
  EncodeTile dwt_out = scene.tile(true, dwt::Wavelet::k97);
  ASSERT_TRUE(cpu->forward(ForwardStage::kComponentTransform, ForwardStage::kDwt, dwt_out).ok());
  EncodeTile want = scene.tile(true, dwt::Wavelet::k97);
  ASSERT_TRUE(cpu->forward(ForwardStage::kComponentTransform, ForwardStage::kQuantisation, want).ok());

  const EncodeTile bare = scene.tile(false, dwt::Wavelet::k97);
  ASSERT_EQ(device_tile_unsupported(bare), "");
  const Result<DeviceTilePlan> plan = plan_device_tile(bare);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_TRUE(plan->gather.empty());
  ASSERT_EQ(plan->quantise.size(), want.blocks.size());
  std::vector<float> planes(plan->plane_samples, std::numeric_limits<float>::quiet_NaN());
  for (size_t c = 0; c < 4; ++c) {
    const PlaneView<float> from = dwt_out.planes[c].floats();
    for (int64_t y = 0; y < from.height; ++y)
      std::memcpy(planes.data() + plan->plane_offset[c] + y * plan->plane_pitch[c], from.row(y), from.width * 4);
  }
  std::vector<int32_t> coefficients(plan->t1.coefficients, INT32_MIN);
  int64_t clipped = 0;
  for (const QuantiseJob& job : plan->quantise) {
    ASSERT_LT(job.block, want.blocks.size());
    const quant::QuantizationError found = quantise_on_host(job, planes.data(), coefficients.data());
    const quant::QuantizationError& cpu_found = want.quantisation[job.block];
    EXPECT_EQ(found.clipped, cpu_found.clipped) << "block " << job.block;
    EXPECT_EQ(found.energy, cpu_found.energy) << "block " << job.block;  // bit for bit
    clipped += found.clipped;
    const EncodeBlock& b = want.blocks[job.block];
    const entropy::T1DeviceJob& t1 = plan->t1.jobs[job.block];
    EXPECT_EQ(t1.fraction_bits, b.fraction_bits);
    const PlaneView<const int32_t> placed = b.place.in(PlaneView<const int32_t>(want.planes[b.place.component].ints()));
    for (int64_t y = 0; y < b.place.height; ++y)
      for (int64_t x = 0; x < b.place.width; ++x)
        ASSERT_EQ(coefficients[t1.coefficient_offset + y * b.place.width + x], placed.row(y)[x])
            << "block " << job.block;
  }
  EXPECT_GT(clipped, 0);  // the small steps clip: the limit's rule ran
}

TEST(DeviceTilePlan, TilesItDoesNotCoverSayWhy) {
  const Scene scene;
  EncodeTile mixed = scene.tile(false);
  mixed.planes[1].wavelet = dwt::Wavelet::k97;
  EXPECT_NE(device_tile_unsupported(mixed).find("colour transform"), std::string::npos);
  mixed.colour_transform = false;  // planes of either wavelet, without the colour transform
  EXPECT_EQ(device_tile_unsupported(mixed), "");
  EncodeTile ht = scene.tile(false);
  ht.blocks[5].style.ht = true;
  EXPECT_NE(device_tile_unsupported(ht).find("HT"), std::string::npos);
  EncodeTile roi = scene.tile(false);
  roi.blocks[0].roi_shift = 2;
  EXPECT_NE(device_tile_unsupported(roi).find("ROI"), std::string::npos);
  EncodeTile outside = scene.tile(false);
  outside.blocks.back().place.x0 = outside.planes[0].width();
  EXPECT_NE(device_tile_unsupported(outside).find("outside"), std::string::npos);
  EncodeTile short_source = scene.tile(false);
  short_source.source_x[2] = 30;  // 30 + 53 columns of a 70-wide component
  EXPECT_NE(device_tile_unsupported(short_source).find("component 2"), std::string::npos);
  EXPECT_FALSE(plan_device_tile(roi).ok());
}

// A batch's lanes start their devices on threads (start_device_tile_context)
// and code on meanwhile: before the start, after it, and where there is no
// device (CI; a build without CUDA) at all, every codestream is the CPU
// path's; where the device cannot start, wait_started says so.
TEST(DeviceTileContext, StartingOrNotTheBytesAreTheCpuPaths) {
  Scene scene;
  scene.image.components.resize(3);
  EncodeOptions cpu;
  cpu.threads = 2;
  const Result<std::vector<uint8_t>> want = encode(scene.image, cpu);
  ASSERT_TRUE(want.ok()) << want.status().message();
  EncodeOptions whole = cpu;
  whole.device_tile_context = start_device_tile_context();
  const Result<std::vector<uint8_t>> first = encode(scene.image, whole);
  const Status started = wait_started(*whole.device_tile_context);
  const Result<std::vector<uint8_t>> second = encode(scene.image, whole);
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_TRUE(*first == *want);
  EXPECT_TRUE(*second == *want) << (started.ok() ? "on the device" : "on the CPU: " + started.message());
  if (!started.ok()) {
    EXPECT_FALSE(started.message().empty());
  }
}

}  // namespace
}  // namespace mallat::codec
