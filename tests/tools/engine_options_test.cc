// What encode's and decode's engine flags parse into (tools/engine_options.h)
// and what the engine's placement makes of them (engine/placement.h): the
// device coder's options, whole tiles, lanes and files read ahead, and the
// expected image size a command gives the device's start-up.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "codec/api/encode.h"
#include "common/memory_limit.h"
#include "engine/placement.h"
#include "tests/testdata.h"
#include "tools/engine_options.h"

namespace mallat::tools {
namespace {

using Close = entropy::DeviceCoderOptions::RoundClose;

TEST(EngineOptions, OneFileKeepsTheCodersDefaults) {
  const entropy::DeviceCoderOptions coder = engine::device_coder_options(EngineOptions{}, /*batch=*/false, 1);
  const entropy::DeviceCoderOptions defaults;
  EXPECT_EQ(coder.device_share, defaults.device_share);
  EXPECT_EQ(coder.adapt, defaults.adapt);
  EXPECT_EQ(coder.device_slots, 1);
  EXPECT_EQ(coder.coalesce_close, Close::kWindow);
  EXPECT_EQ(coder.coalesce_callers, 1);
  EXPECT_FALSE(coder.wait_for_device);
  // However many files a batch would code at once, one file's rounds wait
  // for no other caller.
  EXPECT_EQ(engine::device_coder_options(EngineOptions{}, /*batch=*/false, 12).coalesce_callers, 1);
}

TEST(EngineOptions, ABatchGivesTheGpuEveryBlockInTwoSlotsThatCloseWhenFree) {
  const entropy::DeviceCoderOptions coder = engine::device_coder_options(EngineOptions{}, /*batch=*/true, 3);
  EXPECT_EQ(coder.device_share, engine::kBatchDeviceShare);
  EXPECT_FALSE(coder.adapt);
  EXPECT_EQ(coder.device_slots, engine::kBatchDeviceSlots);
  EXPECT_EQ(coder.coalesce_close, Close::kSlotFree);
  EXPECT_EQ(coder.coalesce_callers, 3);
}

TEST(EngineOptions, GivenValuesWinOverEitherDefault) {
  EngineOptions options;
  ASSERT_TRUE(parse_device_share("0.25", &options).ok());
  ASSERT_TRUE(parse_device_slots("3", &options).ok());
  ASSERT_TRUE(parse_device_rounds("idle", &options).ok());
  for (bool batch : {false, true}) {
    const entropy::DeviceCoderOptions coder = engine::device_coder_options(options, batch, 2);
    EXPECT_EQ(coder.device_share, 0.25) << batch;
    EXPECT_FALSE(coder.adapt) << batch;
    EXPECT_EQ(coder.device_slots, 3) << batch;
    EXPECT_EQ(coder.coalesce_close, Close::kDeviceIdle) << batch;
  }
  ASSERT_TRUE(parse_device_rounds("window", &options).ok());
  EXPECT_EQ(engine::device_coder_options(options, true, 2).coalesce_close, Close::kWindow);
  EXPECT_FALSE(parse_device_slots("0", &options).ok());
  EXPECT_FALSE(parse_device_slots("5", &options).ok());
  EXPECT_FALSE(parse_device_rounds("soon", &options).ok());
}

// --device-tile-slots: 1..16, unset (0) until given; a bad value names the
// option.
TEST(EngineOptions, TileSlotsFromOneToSixteen) {
  EngineOptions options;
  EXPECT_EQ(options.device_tile_slots, 0);
  ASSERT_TRUE(parse_device_tile_slots("12", &options).ok());
  EXPECT_EQ(options.device_tile_slots, 12);
  for (const char* bad : {"0", "17", "x", "4.5", ""}) {
    const Status s = parse_device_tile_slots(bad, &options);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.message().find("--device-tile-slots"), std::string::npos) << bad;
  }
  EXPECT_EQ(options.device_tile_slots, 12);
}

// --device-stages: whole tiles on the device by default for a batch, not
// for one file, either as asked; a bad value names the option.
TEST(EngineOptions, WholeTilesForABatchUnlessAskedOtherwise) {
  EngineOptions options;
  EXPECT_TRUE(engine::whole_tiles(options.device_stages, /*batch=*/true));
  EXPECT_FALSE(engine::whole_tiles(options.device_stages, /*batch=*/false));
  ASSERT_TRUE(parse_device_stages("all", &options).ok());
  EXPECT_TRUE(engine::whole_tiles(options.device_stages, false));
  ASSERT_TRUE(parse_device_stages("tier1", &options).ok());
  EXPECT_FALSE(engine::whole_tiles(options.device_stages, true));
  const Status bad = parse_device_stages("dwt", &options);
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("--device-stages"), std::string::npos) << bad.message();
}

// --device: cpu, cuda, auto ("reference" is taken as auto); anything else
// names the option.
TEST(EngineOptions, DeviceNames) {
  Device device = Device::kCpu;
  ASSERT_TRUE(parse_device("cuda", &device).ok());
  EXPECT_EQ(device, Device::kCuda);
  ASSERT_TRUE(parse_device("auto", &device).ok());
  EXPECT_EQ(device, Device::kAuto);
  ASSERT_TRUE(parse_device("cpu", &device).ok());
  EXPECT_EQ(device, Device::kCpu);
  const Status bad = parse_device("gpu", &device);
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("--device"), std::string::npos) << bad.message();
}

// A batch whose tiles go to the device whole codes more files at once and
// reads 4 ahead; --batch-files wins over either default.
TEST(EngineOptions, WholeTileBatchesCodeAndReadAheadMoreFiles) {
  EngineOptions options;
  EXPECT_EQ(engine::encode_files_at_once(options), engine::kDefaultBatchFiles);
  EXPECT_EQ(engine::decode_files_at_once(options), engine::kDefaultBatchFiles);
  options.device = Device::kCuda;
  EXPECT_EQ(engine::encode_files_at_once(options), engine::kWholeTileBatchFiles);
  EXPECT_EQ(engine::decode_files_at_once(options), engine::kWholeTileDecodeBatchFiles);
  ASSERT_TRUE(parse_device_stages("tier1", &options).ok());
  EXPECT_EQ(engine::encode_files_at_once(options), engine::kDefaultBatchFiles);
  ASSERT_TRUE(parse_batch_files("5", &options.files_at_once).ok());
  EXPECT_EQ(engine::encode_files_at_once(options), 5);
  EXPECT_EQ(engine::decode_files_at_once(options), 5);
  EXPECT_FALSE(parse_batch_files("257", &options.files_at_once).ok());
  EXPECT_EQ(engine::files_ahead(EngineOptions{}, true), 4);
  EXPECT_EQ(engine::files_ahead(EngineOptions{}, false), 2);
}

// A whole-tile batch's lanes share the engine's threads, at least one each.
TEST(EngineOptions, WholeTileLanesShareTheEnginesThreads) {
  EngineOptions options;
  options.threads = 16;
  EXPECT_EQ(engine::whole_tile_lane_threads(options, engine::kWholeTileBatchFiles), 1);
  EXPECT_EQ(engine::whole_tile_lane_threads(options, engine::kWholeTileDecodeBatchFiles), 2);
  EXPECT_EQ(engine::whole_tile_lane_threads(options, 3), 5);
  // A batch of fewer items than lanes shares them among its items.
  EXPECT_EQ(engine::whole_tile_lane_threads(options, engine::kWholeTileBatchFiles, 4), 4);
  EXPECT_EQ(engine::whole_tile_lane_threads(options, engine::kWholeTileBatchFiles, 64), 1);
  options.threads = 2;
  EXPECT_EQ(engine::whole_tile_lane_threads(options, 12), 1);
  EXPECT_EQ(engine::whole_tile_lane_threads(options, 0), 2);
}

// One image gains from the device only from 128 M samples; unknown is small;
// an HT image never, streamed or whole.
TEST(EngineOptions, OneSmallImageStaysOnTheCpu) {
  constexpr uint64_t kLarge = uint64_t{1} << 27;
  for (const bool streamed : {false, true}) {
    EXPECT_FALSE(engine::device_pays_for_one_item({false, 0, streamed}, false));
    EXPECT_FALSE(engine::device_pays_for_one_item({false, kLarge - 1, streamed}, false));
    EXPECT_TRUE(engine::device_pays_for_one_item({false, kLarge, streamed}, false));
    EXPECT_FALSE(engine::device_pays_for_one_item({false, kLarge, streamed}, true));
  }
  // The device coder's room: the image's when coded whole, none (a strip's
  // launches, grown to) when streamed.
  EXPECT_EQ(engine::device_room_samples({false, kLarge, false}), kLarge);
  EXPECT_EQ(engine::device_room_samples({false, kLarge, true}), 0u);
  EXPECT_EQ(engine::device_room_samples({true, 5, false}), 5u);
}

// A Part 1 batch pays for the device, except an encode of small items; an
// HT batch only from its threshold of samples in all (items times the first
// item's samples), and one of unknown size is taken as paying, as before
// its size was known.
TEST(EngineOptions, AnHtBatchGoesToTheDeviceOnlyWithEnoughSamples) {
  constexpr uint64_t kSmall = 768 * 512 * 3, k720p = 1280 * 720 * 3, k4K = 3840 * 2048 * 3;
  EXPECT_FALSE(engine::device_pays_for_batch({true, kSmall, false, 216}, /*ht=*/false, /*decode=*/false));
  EXPECT_TRUE(engine::device_pays_for_batch({true, k720p, false, 128}, false, false));
  EXPECT_TRUE(engine::device_pays_for_batch({true, 0, false, 216}, false, false));  // size unknown
  for (const bool decode : {false, true}) {
    EXPECT_EQ(engine::device_pays_for_batch({true, kSmall, false, 216}, /*ht=*/false, decode), decode);
    EXPECT_FALSE(engine::device_pays_for_batch({true, kSmall, false, 216}, /*ht=*/true, decode));
    EXPECT_TRUE(engine::device_pays_for_batch({true, k4K, false, 64}, true, decode));
    EXPECT_TRUE(engine::device_pays_for_batch({true, kSmall, false, 0}, true, decode));  // items unknown
    EXPECT_TRUE(engine::device_pays_for_batch({true, 0, false, 216}, true, decode));     // size unknown
  }
  // The encode's threshold lies between 22 and 23 4K RGB images, the
  // decode's between 45 and 46.
  EXPECT_TRUE(engine::device_pays_for_batch({true, k4K, false, 23}, true, false));
  EXPECT_FALSE(engine::device_pays_for_batch({true, k4K, false, 22}, true, false));
  EXPECT_TRUE(engine::device_pays_for_batch({true, k4K, false, 46}, true, true));
  EXPECT_FALSE(engine::device_pays_for_batch({true, k4K, false, 45}, true, true));
  // No overflow with many items of many samples.
  EXPECT_TRUE(engine::device_pays_for_batch({true, uint64_t{1} << 40, false, uint64_t{1} << 40}, true, true));
  EngineOptions options;
  EXPECT_FALSE(engine::device_asked(options));
  options.device_stages = DeviceStages::kAll;
  EXPECT_TRUE(engine::device_asked(options));
  options = EngineOptions{};
  options.device_share = 0.5;
  EXPECT_TRUE(engine::device_asked(options));
}

// One large Part 1 item goes to the device whole where its memory fits:
// never a batch, an HT item, a 9/7 decode, a small or a huge one, a decode
// of part of the image, or one whose options name the device's part.
TEST(EngineOptions, OneLargePart1ItemGoesToTheDeviceWholeWhereItFits) {
  const EngineOptions options;
  const uint64_t samples = engine::kOneItemDeviceSamples;
  const bool fits = static_cast<double>(samples) * engine::kOneItemWholeBytesPerSample <=
                    engine::kBatchMemoryShare * static_cast<double>(default_memory_limit());
  EXPECT_EQ(engine::one_item_whole_on_device(options, {false, samples, true}, false), fits);
  EXPECT_FALSE(engine::one_item_whole_on_device(options, {false, samples - 1, true}, false));
  EXPECT_FALSE(engine::one_item_whole_on_device(options, {false, engine::kOneItemWholeSamples + 1, true}, false));
  EXPECT_FALSE(engine::one_item_whole_on_device(options, {true, samples, false, 1}, false));
  EXPECT_FALSE(engine::one_item_whole_on_device(options, {false, samples, true}, /*ht=*/true));
  // A decode on the 9/7 path keeps its strips.
  Workload irreversible{false, samples, true};
  irreversible.irreversible = true;
  EXPECT_FALSE(engine::one_item_whole_on_device(options, irreversible, false));
  EXPECT_FALSE(engine::one_item_whole_on_device(options, {false, samples, true}, false, /*whole=*/false));
  codec::DecodeOptions decode;
  EXPECT_TRUE(engine::decodes_whole_image(decode));
  decode.reduce = 1;
  EXPECT_FALSE(engine::decodes_whole_image(decode));
  decode = codec::DecodeOptions{};
  decode.region = dwt::Rect{0, 0, 8, 8};
  EXPECT_FALSE(engine::decodes_whole_image(decode));
  decode = codec::DecodeOptions{};
  decode.components = {0};
  EXPECT_FALSE(engine::decodes_whole_image(decode));
  Workload strips{false, samples, true};
  strips.strips_asked = true;
  EXPECT_FALSE(engine::one_item_whole_on_device(options, strips, false));
  EngineOptions asked;
  asked.device_stages = DeviceStages::kTier1;
  EXPECT_FALSE(engine::one_item_whole_on_device(asked, {false, samples, true}, false));
  asked = EngineOptions{};
  asked.device_share = 0.5;
  EXPECT_FALSE(engine::one_item_whole_on_device(asked, {false, samples, true}, false));
  // A memory limit too small for the whole image keeps it in strips.
  const uint64_t most = static_cast<uint64_t>(engine::kBatchMemoryShare * static_cast<double>(default_memory_limit()) /
                                              engine::kOneItemWholeBytesPerSample);
  if (most + 1 <= engine::kOneItemWholeSamples) {
    EXPECT_FALSE(engine::one_item_whole_on_device(options, {false, most + 1, true}, false));
  }
}

// An HT encode under a size or quality target goes to the device only
// where the runner keeps its tiles whole (by estimates, nominal steps, one
// tile an image) and the batch is large enough; one whose blocks would be
// coded again from the host's indices stays on the CPU at any size. Part 1
// under a target and HT without one keep the rule above.
TEST(EngineOptions, AnHtEncodeUnderATargetGoesToTheDeviceOnlyKeptWholeAndLarge) {
  constexpr uint64_t k4K = 3840 * 2048 * 3;
  using engine::HtTarget;
  EXPECT_FALSE(engine::device_pays_for_batch({true, k4K, false, 1024}, /*ht=*/true, false, HtTarget::kCodedAgainOnHost));
  EXPECT_FALSE(engine::device_pays_for_batch({true, 0, false, 0}, true, false, HtTarget::kCodedAgainOnHost));
  EXPECT_FALSE(engine::device_pays_for_batch({true, 0, false, 0}, true, false, HtTarget::kKeptWhole));  // unknown
  const uint64_t items = (engine::kHtTargetEncodeBatchDeviceSamples + k4K - 1) / k4K;
  EXPECT_TRUE(engine::device_pays_for_batch({true, k4K, false, items}, true, false, HtTarget::kKeptWhole));
  EXPECT_FALSE(engine::device_pays_for_batch({true, k4K, false, items - 1}, true, false, HtTarget::kKeptWhole));
  EXPECT_TRUE(engine::device_pays_for_batch({true, k4K, false, 64}, true, false, HtTarget::kNone));
  {
    codec::EncodeOptions o;
    o.style.ht = true;
    EXPECT_EQ(engine::ht_target_of(o), HtTarget::kNone);  // lossless
    o.rate_kind = codec::EncodeOptions::RateKind::kRatio;
    o.rate_values = {20};
    EXPECT_EQ(engine::ht_target_of(o), HtTarget::kKeptWhole);
    o.ht_rate = codec::EncodeOptions::HtRate::kEstimatedSteps;
    EXPECT_EQ(engine::ht_target_of(o), HtTarget::kCodedAgainOnHost);
    o.ht_rate = codec::EncodeOptions::HtRate::kEveryPlane;
    EXPECT_EQ(engine::ht_target_of(o), HtTarget::kCodedAgainOnHost);
    o.ht_rate = codec::EncodeOptions::HtRate::kAuto;
    o.tile_width = o.tile_height = 1024;
    EXPECT_EQ(engine::ht_target_of(o), HtTarget::kCodedAgainOnHost);
  }
  codec::EncodeOptions encode;
  EXPECT_FALSE(encode.ht_under_target());
  encode.rate_kind = codec::EncodeOptions::RateKind::kRatio;
  encode.rate_values = {20};
  EXPECT_FALSE(encode.ht_under_target());  // Part 1 blocks
  encode.style.ht = true;
  EXPECT_TRUE(encode.ht_under_target());
  encode.rate_kind = codec::EncodeOptions::RateKind::kNone;
  encode.rate_values.clear();
  EXPECT_FALSE(encode.ht_under_target());
  encode.max_file_bytes = 1000;
  EXPECT_TRUE(encode.ht_under_target());
}

// A batch decode of small items on the device: Tier-1 in rounds that close
// when the device is idle, kSmallItemDecodeFiles lanes; whole tiles for
// larger items, one item, unknown sizes or stages named.
TEST(EngineOptions, SmallItemsDecodeTier1InRoundsNotWholeTiles) {
  constexpr uint64_t kSmall = 768 * 512 * 3, k4K = 3840 * 2048 * 3;
  EXPECT_FALSE(engine::decode_whole_tiles(DeviceStages::kDefault, {true, kSmall}));
  EXPECT_TRUE(engine::decode_whole_tiles(DeviceStages::kDefault, {true, k4K}));
  EXPECT_TRUE(engine::decode_whole_tiles(DeviceStages::kDefault, {true, 0}));
  EXPECT_FALSE(engine::decode_whole_tiles(DeviceStages::kDefault, {false, kSmall}));
  EXPECT_TRUE(engine::decode_whole_tiles(DeviceStages::kAll, {true, kSmall}));
  EXPECT_FALSE(engine::decode_whole_tiles(DeviceStages::kTier1, {true, k4K}));
  EngineOptions options;
  options.device = Device::kCuda;
  EXPECT_EQ(engine::decode_files_at_once(options, kSmall), engine::kSmallItemDecodeFiles);
  EXPECT_EQ(engine::decode_files_at_once(options, k4K), engine::kWholeTileDecodeBatchFiles);
  const entropy::DeviceCoderOptions coder = engine::device_coder_options(options, true, 8, /*small_items=*/true);
  EXPECT_EQ(coder.coalesce_close, Close::kDeviceIdle);
  EXPECT_EQ(coder.coalesce_callers, 8);
  ASSERT_TRUE(parse_device_rounds("free", &options).ok());
  EXPECT_EQ(engine::device_coder_options(options, true, 8, true).coalesce_close, Close::kSlotFree);
}

TEST(EngineOptions, TheExpectedSizeIsTheFilesOrAFoldersFirstByName) {
  namespace fs = std::filesystem;
  const fs::path dir = testing::make_temp_dir("engine-options");
  const auto write = [](const fs::path& p, size_t bytes) { std::ofstream(p, std::ios::binary) << std::string(bytes, 'x'); };
  write(dir / "b.ppm", 300);
  write(dir / "a.ppm", 100);
  write(dir / "c.ppm", 500);
  fs::create_directory(dir / "0-folder");  // not a file: passed over
  EXPECT_EQ(engine::expected_samples_of((dir / "c.ppm").string()), 500u);
  EXPECT_EQ(engine::expected_samples_of(dir.string()), 100u);
  EXPECT_EQ(engine::expected_samples_of((dir / "0-folder").string()), 0u);  // empty folder
  EXPECT_EQ(engine::expected_samples_of((dir / "missing").string()), 0u);
  fs::remove_all(dir);
}

// A CPU batch codes a file per thread, each lane on one thread, unless
// memory holds fewer of its items; --batch-files shares the threads among
// the lanes it asks for.
TEST(EngineOptions, ACpuBatchCodesAFilePerThreadWhereMemoryHoldsThem) {
  EngineOptions options;
  options.threads = 16;
  engine::BatchLanes lanes = engine::cpu_batch_lanes(options, 0);
  EXPECT_EQ(lanes.lanes, 16);
  EXPECT_EQ(lanes.threads_each, 1);
  lanes = engine::cpu_batch_lanes(options, 768 * 512 * 3);
  EXPECT_EQ(lanes.lanes, 16);
  EXPECT_EQ(lanes.threads_each, 1);
  // Items of which memory holds about three: three lanes of five threads.
  const uint64_t budget = static_cast<uint64_t>(engine::kBatchMemoryShare * double(default_memory_limit()));
  lanes = engine::cpu_batch_lanes(options, budget / engine::kBatchItemBytesPerSample / 3);
  EXPECT_EQ(lanes.lanes, 3);
  EXPECT_EQ(lanes.threads_each, 5);
  // An item larger than memory holds still gets one lane, with every thread.
  lanes = engine::cpu_batch_lanes(options, budget);
  EXPECT_EQ(lanes.lanes, 1);
  EXPECT_EQ(lanes.threads_each, 16);
  options.files_at_once = 4;
  lanes = engine::cpu_batch_lanes(options, budget);
  EXPECT_EQ(lanes.lanes, 4);
  EXPECT_EQ(lanes.threads_each, 4);
  options.threads = 2;
  options.files_at_once = 16;
  lanes = engine::cpu_batch_lanes(options, 0);
  EXPECT_EQ(lanes.lanes, 16);
  EXPECT_EQ(lanes.threads_each, 1);
}

// A decode batch's lanes are sized by the samples its first file decodes
// to, read from SIZ (every component), in a codestream or a JP2 file.
TEST(EngineOptions, ADecodesSamplesComeFromSiz) {
  Image image;
  for (int c = 0; c < 3; ++c) {
    Component component;
    component.width = 17;
    component.height = 9;
    component.precision = 8;
    component.samples.assign(17 * 9, 100 + c);
    image.components.push_back(std::move(component));
  }
  codec::EncodeOptions options;
  const std::vector<uint8_t> j2k = codec::encode(image, options).value();
  EXPECT_EQ(engine::decoded_samples_of(j2k), 3u * 17 * 9);
  options.container = codec::Container::kJp2;
  const std::vector<uint8_t> jp2 = codec::encode(image, options).value();
  EXPECT_EQ(engine::decoded_samples_of(jp2), 3u * 17 * 9);
  EXPECT_FALSE(engine::decoded_item_of(jp2).ht);
  options.style.ht = true;
  EXPECT_TRUE(engine::decoded_item_of(codec::encode(image, options).value()).ht);
  const std::vector<uint8_t> junk(64, 0x5a);
  EXPECT_EQ(engine::decoded_samples_of(junk), 0u);
  namespace fs = std::filesystem;
  const fs::path dir = testing::make_temp_dir("engine-decoded-samples");
  std::ofstream(dir / "a.jp2", std::ios::binary).write(reinterpret_cast<const char*>(jp2.data()), jp2.size());
  std::ofstream(dir / "b.txt", std::ios::binary) << "not a stream";
  EXPECT_EQ(engine::decoded_samples_of(dir.string()), 3u * 17 * 9);
  EXPECT_EQ(engine::decoded_samples_of((dir / "b.txt").string()), 0u);
  EXPECT_EQ(engine::decoded_samples_of((dir / "missing").string()), 0u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mallat::tools
