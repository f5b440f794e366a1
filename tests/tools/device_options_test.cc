// What --device cuda's batch options make of the coder's options
// (tools/device_options.h) and the expected image size a command gives the
// device's start-up (tools/device_placement.h, expected_samples_hint).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/testdata.h"
#include "tools/batch_lanes.h"
#include "tools/device_options.h"
#include "tools/device_placement.h"

namespace mallat::tools {
namespace {

using Close = entropy::DeviceCoderOptions::RoundClose;

TEST(DeviceOptions, OneFileKeepsTheCodersDefaults) {
  entropy::DeviceCoderOptions coder;
  apply_device_request(DeviceRequest{}, /*batch=*/false, 1, coder);
  const entropy::DeviceCoderOptions defaults;
  EXPECT_EQ(coder.device_share, defaults.device_share);
  EXPECT_EQ(coder.adapt, defaults.adapt);
  EXPECT_EQ(coder.device_slots, 1);
  EXPECT_EQ(coder.coalesce_close, Close::kWindow);
  EXPECT_EQ(coder.coalesce_callers, 1);
}

TEST(DeviceOptions, ABatchGivesTheGpuEveryBlockInTwoSlotsThatCloseWhenFree) {
  entropy::DeviceCoderOptions coder;
  apply_device_request(DeviceRequest{}, /*batch=*/true, 3, coder);
  EXPECT_EQ(coder.device_share, kBatchDeviceShare);
  EXPECT_FALSE(coder.adapt);
  EXPECT_EQ(coder.device_slots, kBatchDeviceSlots);
  EXPECT_EQ(coder.coalesce_close, Close::kSlotFree);
  EXPECT_EQ(coder.coalesce_callers, 3);
}

TEST(DeviceOptions, GivenValuesWinOverEitherDefault) {
  DeviceRequest request;
  ASSERT_TRUE(parse_device_share("0.25", &request).ok());
  ASSERT_TRUE(parse_device_slots("3", &request).ok());
  ASSERT_TRUE(parse_device_rounds("idle", &request).ok());
  for (bool batch : {false, true}) {
    entropy::DeviceCoderOptions coder;
    apply_device_request(request, batch, 2, coder);
    EXPECT_EQ(coder.device_share, 0.25) << batch;
    EXPECT_FALSE(coder.adapt) << batch;
    EXPECT_EQ(coder.device_slots, 3) << batch;
    EXPECT_EQ(coder.coalesce_close, Close::kDeviceIdle) << batch;
  }
  ASSERT_TRUE(parse_device_rounds("window", &request).ok());
  entropy::DeviceCoderOptions coder;
  apply_device_request(request, true, 2, coder);
  EXPECT_EQ(coder.coalesce_close, Close::kWindow);
  EXPECT_FALSE(parse_device_slots("0", &request).ok());
  EXPECT_FALSE(parse_device_slots("5", &request).ok());
  EXPECT_FALSE(parse_device_rounds("soon", &request).ok());
}

// --device-tile-slots: 1..16, unset (0) until given; a bad value names the
// option.
TEST(DeviceOptions, TileSlotsFromOneToSixteen) {
  DeviceRequest request;
  EXPECT_EQ(request.tile_slots, 0);
  ASSERT_TRUE(parse_device_tile_slots("12", &request).ok());
  EXPECT_EQ(request.tile_slots, 12);
  for (const char* bad : {"0", "17", "x", "4.5", ""}) {
    const Status s = parse_device_tile_slots(bad, &request);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.message().find("--device-tile-slots"), std::string::npos) << bad;
  }
  EXPECT_EQ(request.tile_slots, 12);
}

// --device-stages: whole tiles on the device by default for a batch, not
// for one file, either as asked; a bad value names the option.
TEST(DeviceOptions, WholeTilesForABatchUnlessAskedOtherwise) {
  DeviceRequest request;
  EXPECT_TRUE(device_whole_tiles(request, /*batch=*/true));
  EXPECT_FALSE(device_whole_tiles(request, /*batch=*/false));
  ASSERT_TRUE(parse_device_stages("all", &request).ok());
  EXPECT_TRUE(device_whole_tiles(request, false));
  ASSERT_TRUE(parse_device_stages("tier1", &request).ok());
  EXPECT_FALSE(device_whole_tiles(request, true));
  const Status bad = parse_device_stages("dwt", &request);
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("--device-stages"), std::string::npos) << bad.message();
}

// A batch whose tiles go to the device whole codes 4 files at once and
// reads 4 ahead; --batch-files wins over either default.
TEST(DeviceOptions, WholeTileBatchesCodeAndReadAheadMoreFiles) {
  EXPECT_EQ(batch_files_for(0, /*whole_tiles_on_device=*/true), kWholeTileBatchFiles);
  EXPECT_EQ(batch_files_for(0, false), kDefaultBatchFiles);
  EXPECT_EQ(batch_files_for(2, true), 2);
  EXPECT_EQ(batch_files_for(5, false), 5);
  EXPECT_EQ(files_ahead_for(true), 4);
  EXPECT_EQ(files_ahead_for(false), 2);
}

TEST(DeviceOptions, TheExpectedSizeIsTheFilesOrAFoldersFirstByName) {
  namespace fs = std::filesystem;
  const fs::path dir = testing::make_temp_dir("device-options");
  const auto write = [](const fs::path& p, size_t bytes) { std::ofstream(p, std::ios::binary) << std::string(bytes, 'x'); };
  write(dir / "b.ppm", 300);
  write(dir / "a.ppm", 100);
  write(dir / "c.ppm", 500);
  fs::create_directory(dir / "0-folder");  // not a file: passed over
  EXPECT_EQ(expected_samples_hint((dir / "c.ppm").string()), 500u);
  EXPECT_EQ(expected_samples_hint(dir.string()), 100u);
  EXPECT_EQ(expected_samples_hint((dir / "0-folder").string()), 0u);  // empty folder
  EXPECT_EQ(expected_samples_hint((dir / "missing").string()), 0u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mallat::tools
