// The device runner's plan (codec/stages/device_tile_plan.h), checked on the
// CPU: its Tier-1 jobs, read over the CPU runner's DWT output laid out as
// the plan says, give each code-block the samples the CPU codes, and Tier-1
// on them gives the CPU runner's bytes; its quantise jobs give the CPU's
// values and findings; its Tier-1 jobs carry
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
#include "codec/encoder/encode_call.h"
#include "codec/stages/block_coding.h"
#include "codec/stages/device_tile_stages.h"
#include "codec/stages/tile_stages.h"
#include "common/image.h"
#include "dwt/geometry.h"
#include "entropy/ebcot/shared_encoder.h"
#include "entropy/ht/plane_estimate.h"
#include "entropy/ht/shared_plane_statistics.h"
#include "tests/codec/device_scene.h"

namespace mallat::codec {
namespace {

TEST(DeviceTilePlan, JobsReadWhatTheCpuRunnerCodesWhereTheDwtLeftIt) {
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
  // The DWT's input buffer (poisoned) and its output as the device holds
  // it: the planes one after another, in rows of their pitch (padding
  // poisoned).
  ASSERT_EQ(plan->t1.coefficients, 2 * plan->plane_samples);
  EXPECT_TRUE(plan->quantise.empty());
  std::vector<int32_t> buffers(plan->t1.coefficients, INT32_MIN);
  int32_t* const planes = buffers.data() + plan->plane_samples;
  std::fill(planes, planes + plan->plane_samples, INT32_MAX);
  for (size_t c = 0; c < 4; ++c) {
    const PlaneView<int32_t> from = want.planes[c].ints();
    for (int64_t y = 0; y < from.height; ++y)
      std::memcpy(planes + plan->plane_offset[c] + y * plan->plane_pitch[c], from.row(y), from.width * 4);
  }

  // The CPU runner's Tier-1 on its own planes.
  ASSERT_TRUE(cpu->forward(ForwardStage::kBlockCoding, ForwardStage::kBlockCoding, want).ok());
  for (size_t i = 0; i < want.blocks.size(); ++i) {
    const EncodeBlock& b = want.blocks[i];
    const entropy::T1DeviceJob& job = plan->t1.jobs[i];
    ASSERT_EQ(job.width, b.place.width);
    ASSERT_EQ(job.height, b.place.height);
    EXPECT_EQ(job.orientation, static_cast<uint8_t>(b.orientation));
    EXPECT_EQ(job.num_bitplanes, b.num_bitplanes);
    ASSERT_GE(job.coefficient_offset, plan->plane_samples) << "block " << i;  // in the DWT's output
    ASSERT_LE(job.coefficient_offset + entropy::job_span(job), plan->t1.coefficients) << "block " << i;
    EXPECT_EQ(job.stride, plan->plane_pitch[static_cast<size_t>(b.place.component)]);
    const PlaneView<const int32_t> gathered{buffers.data() + job.coefficient_offset, job.width, job.height,
                                            static_cast<int64_t>(entropy::job_stride(job))};
    const PlaneView<const int32_t> placed = b.place.in(PlaneView<const int32_t>(want.planes[b.place.component].ints()));
    const entropy::SharedT1Block shared = entropy::shared_block_of(job, buffers.data());  // the kernels' view
    EXPECT_EQ(shared.coefficients, gathered.data);
    EXPECT_EQ(shared.stride, gathered.stride);
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
  ASSERT_EQ(plan->quantise.size(), want.blocks.size());
  std::vector<float> planes(plan->plane_samples, std::numeric_limits<float>::quiet_NaN());
  for (size_t c = 0; c < 4; ++c) {
    const PlaneView<float> from = dwt_out.planes[c].floats();
    for (int64_t y = 0; y < from.height; ++y)
      std::memcpy(planes.data() + plan->plane_offset[c] + y * plan->plane_pitch[c], from.row(y), from.width * 4);
  }
  // The values go to the DWT's input buffer, the first of the batch's two.
  ASSERT_EQ(plan->t1.coefficients, 2 * plan->plane_samples);
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
    EXPECT_EQ(t1.coefficient_offset, job.target);
    ASSERT_LE(job.target + entropy::job_span(t1), plan->plane_samples) << "block " << job.block;
    const PlaneView<const int32_t> placed = b.place.in(PlaneView<const int32_t>(want.planes[b.place.component].ints()));
    for (int64_t y = 0; y < b.place.height; ++y)
      for (int64_t x = 0; x < b.place.width; ++x)
        ASSERT_EQ(coefficients[t1.coefficient_offset + y * entropy::job_stride(t1) + x], placed.row(y)[x])
            << "block " << job.block;
  }
  EXPECT_GT(clipped, 0);  // the small steps clip: the limit's rule ran
}

// Rate control by estimates on the device (device_tile_stages.h): each
// block's statistics gathered by the shared code the device's kernel runs
// (entropy/ht/shared_plane_statistics.h) over the indices where the plan
// leaves them give the CPU runner's estimates bit for bit; a round's jobs
// (plan_ht_round) code the blocks the CPU runner codes at the round's
// planes, each reading its indices there, into the CPU's bytes, passes and
// distortions, and leave the others uncoded as it does.
TEST(DeviceTilePlan, HtRateControlAsTheCpuRunner) {
  const Scene scene;
  ThreadPool pool(2);
  auto cpu_dwt = dwt::make_backend(dwt::BackendKind::kCpu, 2).value();
  const std::unique_ptr<TileStages> cpu = make_cpu_tile_stages(pool, *cpu_dwt);
  for (const dwt::Wavelet wavelet : {dwt::Wavelet::k53, dwt::Wavelet::k97}) {
    const auto ht_tile = [&](bool allocate) {
      EncodeTile t = scene.tile(allocate, wavelet);
      for (EncodeBlock& b : t.blocks) b.style.ht = true;
      t.codes_blocks_again = true;
      t.ht_statistics = true;
      return t;
    };
    EncodeTile dwt_out = ht_tile(true);
    ASSERT_TRUE(cpu->forward(ForwardStage::kComponentTransform, ForwardStage::kDwt, dwt_out).ok());
    EncodeTile want = ht_tile(true);
    ASSERT_TRUE(cpu->forward(ForwardStage::kComponentTransform, ForwardStage::kQuantisation, want).ok());
    ASSERT_EQ(want.ht_estimates.size(), want.blocks.size());

    EncodeTile bare = ht_tile(false);
    ASSERT_EQ(device_tile_unsupported(bare), "");
    const Result<DeviceTilePlan> plan = plan_device_tile(bare);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    // The device's buffers after quantisation: the 9/7's indices in the
    // input buffer, the 5/3's integers in the output.
    std::vector<int32_t> buffers(plan->t1.coefficients, INT32_MIN);
    if (wavelet == dwt::Wavelet::k97) {
      std::vector<float> planes(plan->plane_samples, 0.0f);
      for (size_t c = 0; c < 4; ++c) {
        const PlaneView<float> from = dwt_out.planes[c].floats();
        for (int64_t y = 0; y < from.height; ++y)
          std::memcpy(planes.data() + plan->plane_offset[c] + y * plan->plane_pitch[c], from.row(y), from.width * 4);
      }
      for (const QuantiseJob& job : plan->quantise) quantise_on_host(job, planes.data(), buffers.data());
    } else {
      for (size_t c = 0; c < 4; ++c) {
        const PlaneView<int32_t> from = dwt_out.planes[c].ints();
        for (int64_t y = 0; y < from.height; ++y)
          std::memcpy(buffers.data() + plan->plane_samples + plan->plane_offset[c] + y * plan->plane_pitch[c],
                      from.row(y), from.width * 4);
      }
    }
    for (size_t i = 0; i < bare.blocks.size(); ++i) {
      const entropy::T1DeviceJob& job = plan->t1.jobs[i];
      const entropy::HtBlockIndices indices{buffers.data() + job.coefficient_offset, job.width, job.height,
                                            entropy::job_stride(job)};
      entropy::HtPlaneCounts counts;
      double deep[entropy::kHtPlanes];
      entropy::HtPlaneStatistics statistics;
      ASSERT_TRUE(entropy::ht_block_statistics(indices, job.fraction_bits, counts, deep, statistics));
      const entropy::HtPlaneEstimate got = entropy::estimate_ht_planes(statistics, bare.blocks[i].fraction_bits);
      ASSERT_EQ(std::memcmp(&got, &want.ht_estimates[i], sizeof got), 0) << "block " << i;
    }
    // Two rounds: planes -1, 0, 1, 2, 40 (none there) with SigProp and
    // MagRef, then the cleanup alone one plane up.
    for (const bool refinement : {true, false}) {
      std::vector<int8_t> planes(bare.blocks.size());
      for (size_t i = 0; i < planes.size(); ++i)
        planes[i] = static_cast<int8_t>(i % 5 == 4 ? 40 : static_cast<int>(i % 5) - 1 + (refinement ? 0 : 1));
      for (EncodeTile* t : {&want, &bare}) {
        t->ht_block_planes = planes;
        t->ht_refinement = refinement;
      }
      ASSERT_TRUE(cpu->forward(ForwardStage::kBlockCoding, ForwardStage::kBlockCoding, want).ok());
      const Result<DeviceHtRound> round = plan_ht_round(bare, *plan);
      ASSERT_TRUE(round.ok()) << round.status().message();
      ASSERT_EQ(round->t1.jobs.size(), round->block.size());
      ASSERT_EQ(round->t1.coefficients, plan->t1.coefficients);
      size_t k = 0;
      for (size_t i = 0; i < bare.blocks.size(); ++i) {
        const bool coded = k < round->block.size() && round->block[k] == i;
        EXPECT_EQ(coded, block_coded_at(bare.blocks[i], planes[i])) << "block " << i;
        if (!coded) {
          EXPECT_EQ(want.coded[i].num_passes, 0) << "block " << i;
          continue;
        }
        const entropy::T1DeviceJob& job = round->t1.jobs[k];
        EXPECT_EQ(job.coefficient_offset, plan->t1.jobs[i].coefficient_offset);
        EXPECT_EQ(job.ht_cleanup_plane, planes[i]);
        EXPECT_EQ((job.ht_flags & entropy::kHtRefinement) != 0, refinement && planes[i] > 0);
        entropy::BlockToEncode block = round->shapes[k];
        block.coefficients = {buffers.data() + job.coefficient_offset, job.width, job.height,
                              static_cast<int64_t>(entropy::job_stride(job))};
        const Result<entropy::EncodedCodeBlock> e = entropy::encode_block_here(block);
        ASSERT_TRUE(e.ok()) << e.status().message();
        EXPECT_EQ(e->data, want.coded[i].data) << "block " << i;
        ASSERT_EQ(e->passes.size(), want.coded[i].passes.size()) << "block " << i;
        for (size_t p = 0; p < e->passes.size(); ++p) {
          EXPECT_EQ(e->passes[p].cumulative_length, want.coded[i].passes[p].cumulative_length);
          EXPECT_EQ(e->passes[p].distortion_decrease, want.coded[i].passes[p].distortion_decrease);
        }
        ++k;
      }
      EXPECT_EQ(k, round->block.size());
      EXPECT_GT(k, 0u);
    }
  }
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
  EXPECT_NE(device_tile_unsupported(ht).find("two block coders"), std::string::npos);
  for (EncodeBlock& b : ht.blocks) b.style.ht = true;
  EXPECT_EQ(device_tile_unsupported(ht), "");
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
  CallResources whole;
  whole.device_tiles = start_device_tile_context();
  const Result<std::vector<uint8_t>> first = encode(scene.image, cpu, whole, nullptr);
  const Status started = wait_started(*whole.device_tiles);
  const Result<std::vector<uint8_t>> second = encode(scene.image, cpu, whole, nullptr);
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
