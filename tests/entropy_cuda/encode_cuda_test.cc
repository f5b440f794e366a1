// The encoder with Tier-1 on the GPU and the CPU together (the hybrid coder:
// EncodeOptions::dwt_backend kCuda, or CallResources::block_encoder, at several
// device shares) writes the CPU path's codestream byte for byte:
// lossless, 9/7 at a rate target and with every pass, several tiles, mode switches, a 16-bit
// image and HT images (lossless, at a rate target, vertically causal); and with whole tiles
// on the device (codec/stages/device_tile_stages.h). Labelled gpu:
// without a device each test skips and says why.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "codec/codec.h"
#include "codec/encoder/encode_call.h"
#include "codec/stages/device_tile_stages.h"
#include "common/image.h"
#include "entropy/block_coder.h"
#include "tests/entropy_cuda/cuda_cases.h"
#include "tests/stored_image.h"

namespace mallat::codec {
namespace {

// A hybrid coder that puts `share` of every batch on the device, however
// small the batch, and waits for the device's start.
std::shared_ptr<entropy::BlockEncoder> forced(double share, size_t max_blocks = 32768) {
  entropy::DeviceCoderOptions o;
  o.device_share = share;
  o.adapt = false;
  o.wait_for_device = true;
  o.min_device_blocks = 0;
  o.max_blocks_per_launch = max_blocks;
  auto made = entropy::make_device_block_encoder(o);
  return made.ok() ? std::shared_ptr<entropy::BlockEncoder>(std::move(made).value()) : nullptr;
}

// A process that exits while its device starts leaves cleanly: its exit
// waits for the start-up thread (entropy/hybrid/hybrid_coding.cc) rather
// than unloading the CUDA runtime under it. Each child exits right after
// making its coder, while the start-up creates the CUDA context.
TEST(EncodeCudaDeathTest, AProcessThatExitsWhileItsDeviceStartsLeavesCleanly) {
  SKIP_WITHOUT_DEVICE();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  for (int i = 0; i < 5; ++i) {
    EXPECT_EXIT(
        {
          auto coder = entropy::make_device_block_encoder();
          std::exit(coder.ok() ? 0 : 2);
        },
        ::testing::ExitedWithCode(0), "");
  }
}

TEST(EncodeCuda, DeviceTier1WritesTheCpuPathsBytes) {
  SKIP_WITHOUT_DEVICE();
  for (const Case& c : cases()) {
    EncodeOptions cpu = c.options, cuda = c.options;
    cpu.dwt_backend = dwt::BackendKind::kCpu;
    cuda.dwt_backend = dwt::BackendKind::kCuda;
    const auto want = encode(c.image, cpu);
    const auto got = encode(c.image, cuda);
    ASSERT_TRUE(want.ok()) << c.name << ": " << want.status().message();
    ASSERT_TRUE(got.ok()) << c.name << ": " << got.status().message();
    EXPECT_GT(want->size(), 100u) << c.name;
    EXPECT_TRUE(*want == *got) << c.name << ": " << want->size() << " bytes on the CPU, " << got->size()
                               << " with --device cuda";
    // The hybrid coder at fixed shares (all on the device, half, a tenth),
    // with the CUDA DWT and the CPU's.
    for (double share : {1.0, 0.5, 0.1}) {
      for (dwt::BackendKind dwt : {dwt::BackendKind::kCuda, dwt::BackendKind::kCpu}) {
        EncodeOptions hybrid = c.options;
        hybrid.dwt_backend = dwt;
        CallResources coder;
        coder.block_encoder = forced(share);
        ASSERT_NE(coder.block_encoder, nullptr);
        const auto split = encode(c.image, hybrid, coder, nullptr);
        ASSERT_TRUE(split.ok()) << c.name << ": " << split.status().message();
        EXPECT_TRUE(*want == *split) << c.name << ", device share " << share;
        EXPECT_GT(coder.block_encoder->device_times().device_blocks, 0u) << c.name;
      }
    }
  }
}

TEST(EncodeCuda, TheDeviceCoderIsChosenWithTheCudaDwtAndSharedByCalls) {
  SKIP_WITHOUT_DEVICE();
  EncodeOptions options;
  options.threads = 4;
  auto cpu_dwt = dwt::make_backend(dwt::BackendKind::kCpu, 4);
  auto cuda_dwt = dwt::make_backend(dwt::BackendKind::kCuda, 4);
  ASSERT_TRUE(cpu_dwt.ok() && cuda_dwt.ok());
  auto none = block_encoder_for(CallResources{}, **cpu_dwt);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, nullptr);
  auto made = block_encoder_for(CallResources{}, **cuda_dwt);
  ASSERT_TRUE(made.ok()) << made.status().message();
  ASSERT_NE(*made, nullptr);
  EXPECT_NE((*made)->name().find("ebcot on"), std::string::npos) << (*made)->name();
  // One coder for many calls of different sizes (its buffers grow and are
  // reused), with the CPU's DWT: the Part 1 blocks still go to the device.
  for (const Case& c : cases()) {
    CallResources shared;
    shared.block_encoder = *made;
    const auto want = encode(c.image, c.options);
    const auto got = encode(c.image, c.options, shared, nullptr);
    ASSERT_TRUE(want.ok() && got.ok()) << c.name;
    EXPECT_TRUE(*want == *got) << c.name;
  }
}

TEST(EncodeCuda, ALaunchLimitSendsTheRestToTheCpu) {
  SKIP_WITHOUT_DEVICE();
  // 7 blocks a launch: every tile's first 7 on the device, the rest on the
  // CPU, with the encoder's per-block quantisation at the right block.
  const std::shared_ptr<entropy::BlockEncoder> coder = forced(1.0, 7);
  ASSERT_NE(coder, nullptr);
  for (const Case& c : cases()) {
    CallResources parts;
    parts.block_encoder = coder;
    const auto want = encode(c.image, c.options);
    const auto got = encode(c.image, c.options, parts, nullptr);
    ASSERT_TRUE(want.ok() && got.ok()) << c.name;
    EXPECT_TRUE(*want == *got) << c.name;
  }
  EXPECT_GT(coder->device_times().device_blocks, 0u);
  EXPECT_GT(coder->device_times().cpu_blocks, 0u);
}

// The device runner (codec/stages/device_tile_stages.h): tiles it covers go
// to the GPU whole (colour, DWT, the 9/7's quantisation, Tier-1 there, Part 1
// or HT; an HT rate target's one tile kept there for rate control's rounds,
// ht_rate_cuda_test.cc), the others (an HT rate target's of several tiles)
// to the CPU runner; every codestream is the CPU path's, one
// context for all the calls (its buffers grow and are reused), and again
// with 4 components, a signed 12-bit image (2 stored bytes a sample), the
// 9/7 with every pass, with a PSNR target and with fine steps,
// and samples out of range.
TEST(EncodeCuda, WholeTilesOnTheDeviceWriteTheCpuPathsBytes) {
  SKIP_WITHOUT_DEVICE();
  auto device = make_device_tile_context();
  ASSERT_TRUE(device.ok()) << device.status().message();
  std::vector<Case> all = cases();
  EncodeOptions base;
  base.threads = 4;
  all.push_back({"lossless 4 components", photo_like(190, 130, 4, 8, 11), base});
  Image signed12 = photo_like(170, 120, 2, 12, 12);
  for (Component& comp : signed12.components) {
    comp.is_signed = true;
    for (int32_t& v : comp.samples) v -= 2048;
  }
  all.push_back({"lossless signed 12-bit", std::move(signed12), base});
  EncodeOptions one_level = base;
  one_level.resolutions = 2;
  all.push_back({"lossless 1 level, odd size", photo_like(65, 33, 3, 8, 13), one_level});
  EncodeOptions irreversible = base;
  irreversible.reversible = false;
  all.push_back({"-I every pass, 4 components", photo_like(190, 130, 4, 8, 15), irreversible});
  Image signed12_97 = photo_like(170, 120, 3, 12, 16);
  for (Component& comp : signed12_97.components) {
    comp.is_signed = true;
    for (int32_t& v : comp.samples) v -= 2048;
  }
  EncodeOptions ratio = irreversible;
  ratio.rate_kind = EncodeOptions::RateKind::kRatio;
  ratio.rate_values = {12};
  all.push_back({"-I -r 12 signed 12-bit", std::move(signed12_97), ratio});
  EncodeOptions psnr = irreversible;
  psnr.rate_kind = EncodeOptions::RateKind::kPsnr;
  psnr.rate_values = {38};
  all.push_back({"-I -q 38", photo_like(160, 140, 3, 8, 17), psnr});
  EncodeOptions fine = irreversible;
  fine.base_step_scale = 1.0 / 64;  // many planes, few fraction bits
  all.push_back({"-I fine steps", photo_like(120, 90, 3, 8, 18), fine});
  for (const Case& c : all) {
    CallResources whole;
    whole.device_tiles = *device;
    const auto want = encode(c.image, c.options);
    const auto got = encode(c.image, c.options, whole, nullptr);
    ASSERT_TRUE(want.ok()) << c.name << ": " << want.status().message();
    ASSERT_TRUE(got.ok()) << c.name << ": " << got.status().message();
    EXPECT_TRUE(*want == *got) << c.name << ": " << want->size() << " bytes on the CPU, " << got->size()
                               << " with whole tiles on the device";
  }
  // The same images with their samples at their stored width (a device
  // batch reads them so): uploaded as they are, the CPU path's bytes.
  for (const Case& c : all) {
    if (c.image.components[0].precision > 16) continue;
    CallResources whole;
    whole.device_tiles = *device;
    const auto want = encode(c.image, c.options);
    const auto got = encode(mallat::testing::as_stored(c.image), c.options, whole, nullptr);
    ASSERT_TRUE(got.ok()) << c.name << ", stored samples: " << got.status().message();
    EXPECT_TRUE(*want == *got) << c.name << ", stored samples";
  }
  // A sample beyond its precision (a library caller's image): the runner
  // sends the int32 samples instead of the stored ones, and does what the
  // CPU path does with it.
  Image beyond = photo_like(90, 70, 3, 8, 14);
  beyond.components[1].samples[5] = 300;
  beyond.components[2].samples[77] = -3;
  for (const EncodeOptions& o : {base, irreversible}) {
    CallResources whole;
    whole.device_tiles = *device;
    const auto want = encode(beyond, o);
    const auto got = encode(beyond, o, whole, nullptr);
    ASSERT_EQ(want.ok(), got.ok()) << (want.ok() ? got.status().message() : want.status().message());
    if (want.ok()) {
      EXPECT_TRUE(*want == *got) << (o.reversible ? "5/3" : "9/7");
    }
  }
}

// A tile whose run fails on the device (a failure injected after the run,
// as a launch's error found at the end) is coded again on the CPU: the CPU
// path's bytes, a note that says so, and every later tile on the CPU.
TEST(EncodeCuda, ATileThatFailsOnTheDeviceIsCodedOnTheCpu) {
  SKIP_WITHOUT_DEVICE();
  EncodeOptions tiled;
  tiled.threads = 4;
  tiled.tile_width = tiled.tile_height = 128;
  for (const bool ht : {false, true}) {
    const std::string what = ht ? "HT" : "Part 1";
    auto device = make_device_tile_context();
    ASSERT_TRUE(device.ok()) << device.status().message();
    tiled.style.ht = ht;
    // Samples at their stored width: the CPU runner widens the failed
    // tile's rows as it reads them.
    const Image image = mallat::testing::as_stored(photo_like(300, 200, 3, 8, ht ? 33 : 34));
    const auto want = encode(image, tiled);
    ASSERT_TRUE(want.ok()) << what;
    CallResources whole;
    whole.device_tiles = *device;
    inject_device_tile_failures(**device, 1);
    EncodeReport report;
    const auto got = encode(image, tiled, whole, &report);
    ASSERT_TRUE(got.ok()) << what << ": " << got.status().message();
    EXPECT_TRUE(*want == *got) << what;
    int moved = 0;
    for (const std::string& n : report.notes) moved += n.find("the device failed") != std::string::npos;
    EXPECT_EQ(moved, 1) << what;
    EXPECT_FALSE(device_tile_failure(**device).ok()) << what;
    EncodeReport after;
    const auto again = encode(image, tiled, whole, &after);
    ASSERT_TRUE(again.ok()) << what;
    EXPECT_TRUE(*want == *again) << what;
    EXPECT_TRUE(after.notes.empty()) << what;
  }
}

// A batch's lanes share the runner's slots (start_device_tile_context with
// 2 slots, as an engine's lanes share them): four callers on
// threads of their own, each tile on the first free slot, every codestream
// the CPU path's, every tile counted once.
TEST(EncodeCuda, LanesSharingTheRunnersSlotsWriteTheCpuPathsBytes) {
  SKIP_WITHOUT_DEVICE();
  const std::shared_ptr<DeviceTileContext> shared = start_device_tile_context(2, 2);
  ASSERT_TRUE(wait_started(*shared).ok());
  std::vector<Case> all = cases();
  all.resize(4);  // lossless, -I -r 20, -I every pass, -I -r 80,40,10: one tile each
  const std::vector<std::string> wrong = lanes_differing(all, shared);
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(wrong[i], "") << all[i].name;
  EXPECT_EQ(device_tile_times(*shared).tiles, 3 * all.size());
}

}  // namespace
}  // namespace mallat::codec
