// The device runner's inverse plan (codec/stages/device_decode_plan.h),
// checked on the CPU: Tier-1's batch decoded on the host, its
// reconstruction jobs replayed over it give the CPU runner's coefficients
// bit for bit, and its output replayed over the CPU runner's inverse DWT,
// widened back, gives the CPU runner's image; 5/3 and 9/7, blocks cut
// after any pass or without passes, ROI blocks, a 12-bit signed component
// beside three under the colour transform; with a raster, four 8-bit
// components interleaved as the CPU runner writes them.
#include "codec/stages/device_decode_plan.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "codec/stages/stored_samples.h"
#include "codec/stages/tile_stages.h"
#include "entropy/ebcot/ebcot.h"
#include "tests/codec/coded_tile.h"
#include "tests/codec/device_scene.h"

namespace mallat::codec {
namespace {

// The decoder's tile for a tile the CPU runner coded: block i cut after a
// pass that varies with i (none for every seventh), into `image` whose
// components hold the tile at (sx, sy).
struct DecodeScene : CodedTile {
  Image image;
  std::vector<int64_t> origin_x, origin_y;

  DecodeScene(const Scene& scene, const EncodeTile& coded) {
    decode_tile_for(coded, *this, [](size_t i, int all) {
      return i % 7 == 0 ? 0 : i % 3 == 0 ? all : std::max(1, all - 1 - int(i % 4));
    });
    for (const TilePlane& p : coded.planes) {
      origin_x.push_back(p.rect.x0 - scene.sx);
      origin_y.push_back(p.rect.y0 - scene.sy);
    }
    image = scene.image;
    for (Component& comp : image.components) comp.samples.clear();
    tile.image = &image;
    tile.colour_transform = true;
    tile.origin_x = origin_x;
    tile.origin_y = origin_y;
  }
};

void replays_as_the_cpu_runner(dwt::Wavelet wavelet, bool raster = false) {
  const Scene scene(raster);
  ThreadPool pool(2);
  auto cpu_dwt = dwt::make_backend(dwt::BackendKind::kCpu, 2).value();
  const std::unique_ptr<TileStages> cpu = make_cpu_tile_stages(pool, *cpu_dwt);
  EncodeTile coded = scene.tile(true, wavelet, 3);
  ASSERT_TRUE(cpu->forward(ForwardStage::kComponentTransform, ForwardStage::kBlockCoding, coded).ok());
  DecodeScene want(scene, coded);
  const size_t n = want.image.components.size();
  std::vector<uint8_t> pixels;
  if (raster) {
    pixels.assign(static_cast<size_t>(want.image.width() * want.image.height()) * n, 0xEE);
    want.tile.raster = pixels.data();
  }
  ASSERT_EQ(device_decode_unsupported(want.tile), "");
  const Result<DeviceDecodePlan> plan = plan_device_decode(want.tile);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->interleaved, raster);
  EXPECT_EQ(plan->dequantise.size(), want.tile.blocks.size());
  EXPECT_LT(plan->batched.size(), want.tile.blocks.size());  // some blocks have no passes
  EXPECT_TRUE(plan->zero_filled.empty());                   // the blocks tile every plane

  // Tier-1's batch as the device decodes it, on the host.
  std::vector<int32_t> t1(plan->t1.samples, INT32_MIN);
  std::vector<entropy::SharedT1DecodeResult> results(plan->batched.size());
  for (size_t k = 0; k < plan->batched.size(); ++k) {
    const DecodeBlock& b = want.tile.blocks[plan->batched[k]];
    const entropy::T1DecodeJob& job = plan->t1.jobs[k];
    ASSERT_EQ(job.width, b.place.width);
    entropy::DecodedBlock out{{t1.data() + job.sample_offset, b.place.width, b.place.height, b.place.width}, {}, {}};
    entropy::decode_block_on_cpu(b.coded, out);
    ASSERT_TRUE(out.status.ok()) << out.status.message();
    results[k].lowest_plane = static_cast<int8_t>(out.info.lowest_plane);
    results[k].ended_in_significance_pass = out.info.ended_in_significance_pass;
  }
  std::vector<int32_t> planes(plan->plane_samples, INT32_MAX);  // padding poisoned
  for (const DequantiseJob& job : plan->dequantise) dequantise_on_host(job, t1.data(), results.data(), planes.data());

  ASSERT_TRUE(cpu->inverse(InverseStage::kBlockDecoding, InverseStage::kDequantisation, want.tile).ok());
  const auto same_planes = [&](const char* what) {
    for (size_t c = 0; c < want.tile.planes.size(); ++c) {
      const PlaneView<int32_t> cpu_plane = want.tile.planes[c].ints();  // the 9/7's floats as their bits
      for (int64_t y = 0; y < cpu_plane.height; ++y)
        for (int64_t x = 0; x < cpu_plane.width; ++x)
          ASSERT_EQ(planes[plan->plane_offset[c] + y * plan->plane_pitch[c] + x], cpu_plane.row(y)[x])
              << what << ", plane " << c << " at " << x << "," << y;
    }
  };
  same_planes("reconstructed");

  // The output from the CPU's inverse DWT, widened into an image.
  ASSERT_TRUE(cpu->inverse(InverseStage::kInverseDwt, InverseStage::kInverseDwt, want.tile).ok());
  for (size_t c = 0; c < want.tile.planes.size(); ++c) {
    const PlaneView<int32_t> from = want.tile.planes[c].ints();
    for (int64_t y = 0; y < from.height; ++y)
      std::memcpy(planes.data() + plan->plane_offset[c] + y * plan->plane_pitch[c], from.row(y), from.width * 4);
  }
  std::vector<std::byte> stored(plan->stored_size);
  for (size_t c = 0; c < plan->output.size(); ++c) output_on_host(*plan, c, planes.data(), stored.data());
  ASSERT_TRUE(cpu->inverse(InverseStage::kOutput, InverseStage::kOutput, want.tile).ok());
  if (raster) {
    // The tile's pixels as the raster holds them, rows of the tile's width.
    const OutputPlane& p = plan->output[0];
    const size_t image_row = static_cast<size_t>(want.image.width()) * n;
    for (int64_t y = 0; y < p.height; ++y)
      for (int64_t x = 0; x < p.width; ++x)
        for (size_t c = 0; c < n; ++c)
          ASSERT_EQ(static_cast<uint8_t>(stored[(y * p.width + x) * n + c]),
                    pixels[(plan->image_y[0] + y) * image_row + (plan->image_x[0] + x) * n + c])
              << "component " << c << " at " << x << "," << y;
    return;
  }
  for (size_t c = 0; c < plan->output.size(); ++c) {
    const OutputPlane& p = plan->output[c];
    const Component& comp = want.image.components[c];
    EXPECT_EQ(p.bytes, stored_bytes(comp.precision));
    std::vector<int32_t> got(static_cast<size_t>(p.width * p.height));
    widen_on_host(stored.data() + p.stored, static_cast<int64_t>(got.size()), comp.precision, comp.is_signed,
                  got.data());
    for (int64_t y = 0; y < p.height; ++y)
      for (int64_t x = 0; x < p.width; ++x)
        ASSERT_EQ(got[y * p.width + x],
                  comp.samples[(plan->image_y[c] + y) * comp.width + plan->image_x[c] + x])
            << "component " << c << " at " << x << "," << y;
  }
}

TEST(DeviceDecodePlan, ReplaysAsTheCpuRunner53) { replays_as_the_cpu_runner(dwt::Wavelet::k53); }
TEST(DeviceDecodePlan, ReplaysAsTheCpuRunner97) { replays_as_the_cpu_runner(dwt::Wavelet::k97); }
TEST(DeviceDecodePlan, InterleavesIntoTheRaster53) { replays_as_the_cpu_runner(dwt::Wavelet::k53, true); }
TEST(DeviceDecodePlan, InterleavesIntoTheRaster97) { replays_as_the_cpu_runner(dwt::Wavelet::k97, true); }

TEST(DeviceDecodePlan, TilesItDoesNotCoverSayWhy) {
  const Scene scene;
  ThreadPool pool(2);
  auto cpu_dwt = dwt::make_backend(dwt::BackendKind::kCpu, 2).value();
  const std::unique_ptr<TileStages> cpu = make_cpu_tile_stages(pool, *cpu_dwt);
  EncodeTile coded = scene.tile(true);
  ASSERT_TRUE(cpu->forward(ForwardStage::kComponentTransform, ForwardStage::kBlockCoding, coded).ok());
  const auto why = [&](const std::function<void(DecodeScene&)>& change) {
    DecodeScene s(scene, coded);
    change(s);
    return device_decode_unsupported(s.tile);
  };
  EXPECT_EQ(why([](DecodeScene&) {}), "");
  EXPECT_NE(why([](DecodeScene& s) { s.tile.windows.resize(4); }).find("region"), std::string::npos);
  EXPECT_NE(why([](DecodeScene& s) { s.tile.blocks[3].coded.style.ht = true; }).find("two block coders"),
            std::string::npos);
  EXPECT_NE(why([](DecodeScene& s) { s.tile.blocks[2].status = corrupt_data("bad"); }).find("error"),
            std::string::npos);
  EXPECT_NE(why([](DecodeScene& s) { s.image.components[3].precision = 20; }).find("16 bits"), std::string::npos);
  EXPECT_NE(why([](DecodeScene& s) { s.origin_x[1] += 30; }).find("component 1"), std::string::npos);
  EXPECT_NE(why([](DecodeScene& s) { s.tile.planes[2].wavelet = dwt::Wavelet::k97; }).find("colour"),
            std::string::npos);
  EXPECT_NE(why([](DecodeScene& s) { s.tile.blocks.back().place.y0 += 40; }).find("outside"), std::string::npos);
}

}  // namespace
}  // namespace mallat::codec
