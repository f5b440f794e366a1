// mallat::Engine with Device::kCuda (codec/api/engine.h): a batch through
// one engine twice starts the device once (one Tier-1 coder, one runner
// context of tile slots, the lanes made once), and its files are the CPU
// path's byte for byte, decoded back to the CPU path's samples. Labelled
// gpu: without a device each test skips and says why.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "codec/api/engine.h"
#include "codec/codec.h"
#include "codec/stages/device_raster.h"
#include "codec/stages/device_tile_stages.h"
#include "dwt/dwt.h"
#include "engine/engine_impl.h"
#include "entropy/block_coder.h"
#include "tests/codec/joined_strips.h"
#include "tests/engine/engine_images.h"

namespace mallat {
namespace {

#define SKIP_WITHOUT_DEVICE()                                                   \
  do {                                                                          \
    const Status built = entropy::device_block_encoder_built();                 \
    if (!built.ok()) GTEST_SKIP() << "no CUDA in this build: " << built.message(); \
    auto probe = dwt::make_backend(dwt::BackendKind::kCuda, 1);                 \
    if (!probe.ok()) GTEST_SKIP() << "no CUDA device: " << probe.status().message(); \
  } while (0)

// Each image encoded on the CPU path, and the images as a batch's items.
std::vector<std::vector<uint8_t>> cpu_files(const std::vector<Image>& images, const codec::EncodeOptions& o) {
  std::vector<std::vector<uint8_t>> files;
  for (const Image& image : images) files.push_back(codec::encode(image, o).value());
  return files;
}
std::vector<EncodeItem> items_of(const std::vector<Image>& images) {
  std::vector<EncodeItem> items(images.size());
  for (size_t i = 0; i < images.size(); ++i) items[i].image = &images[i];
  return items;
}

TEST(EngineCuda, ASecondBatchReusesTheDeviceTheFirstStarted) {
  SKIP_WITHOUT_DEVICE();
  const std::vector<Image> images = testing::engine_test_images();
  codec::EncodeOptions o;
  o.threads = 4;
  const std::vector<std::vector<uint8_t>> want = cpu_files(images, o);
  const std::vector<EncodeItem> items = items_of(images);
  EngineOptions e;
  e.device = Device::kCuda;
  e.device_stages = DeviceStages::kAll;  // small items' decode would take Tier-1 rounds
  e.threads = 4;
  e.files_at_once = 3;
  Engine engine(e);
  for (int call = 0; call < 2; ++call) {
    const std::vector<EncodeResult> got = engine.encode_batch(items, o);
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_TRUE(got[i].status.ok()) << i << ": " << got[i].status.message();
      EXPECT_TRUE(got[i].bytes == want[i]) << "call " << call << ", item " << i;
    }
    const EngineCounts counts = engine.counts();
    EXPECT_EQ(counts.lanes, 3) << "call " << call;
    EXPECT_EQ(counts.device_coders, 1) << "call " << call;
    EXPECT_EQ(counts.device_contexts, 1) << "call " << call;
  }
  EXPECT_TRUE(engine.device_started());
  EXPECT_TRUE(engine.encode_device_status().ok()) << engine.encode_device_status().message();

  std::vector<DecodeItem> coded(want.size());
  for (size_t i = 0; i < want.size(); ++i) coded[i].data = want[i];
  codec::DecodeOptions d;
  d.threads = 4;
  for (int call = 0; call < 2; ++call) {
    const std::vector<DecodeResult> got = engine.decode_batch(coded, d);
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_TRUE(got[i].status.ok()) << i << ": " << got[i].status.message();
      const Image cpu = codec::decode(want[i], d).value();
      for (size_t c = 0; c < cpu.components.size(); ++c)
        EXPECT_TRUE(got[i].image.components[c].samples == cpu.components[c].samples) << i << " " << c;
    }
    const EngineCounts counts = engine.counts();
    EXPECT_EQ(counts.lanes, 6) << "call " << call;
    EXPECT_EQ(counts.device_coders, 2) << "call " << call;     // the encoder and the decoder
    EXPECT_EQ(counts.device_contexts, 2) << "call " << call;   // a context per direction
  }
}

// The placement left to itself (engine/placement.h): a batch of small Part 1
// files is encoded on the CPU alone (kPart1EncodeItemDeviceSamples) and
// decodes its code-blocks on the device in rounds, no tile context made; a
// batch of small HT files is coded and decoded on the CPU alone. Either
// gives the CPU path's bytes and samples.
TEST(EngineCuda, SmallItemsTakeTier1RoundsOrTheCpu) {
  SKIP_WITHOUT_DEVICE();
  const std::vector<Image> images = testing::engine_test_images();
  for (const bool ht : {false, true}) {
    codec::EncodeOptions o;
    o.threads = 4;
    o.style.ht = ht;
    std::vector<EncodeItem> items(images.size());
    for (size_t i = 0; i < images.size(); ++i) items[i].image = &images[i];
    EngineOptions e;
    e.device = Device::kCuda;
    e.threads = 4;
    Engine engine(e);
    const std::vector<EncodeResult> coded = engine.encode_batch(items, o);
    std::vector<DecodeItem> decode_items(coded.size());
    for (size_t i = 0; i < coded.size(); ++i) {
      ASSERT_TRUE(coded[i].status.ok()) << i << ": " << coded[i].status.message();
      EXPECT_TRUE(coded[i].bytes == codec::encode(images[i], o).value()) << "ht " << ht << ", item " << i;
      decode_items[i].data = coded[i].bytes;
    }
    EXPECT_EQ(engine.counts().device_coders, 0) << "ht " << ht;
    codec::DecodeOptions d;
    d.threads = 4;
    const std::vector<DecodeResult> got = engine.decode_batch(decode_items, d);
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_TRUE(got[i].status.ok()) << i << ": " << got[i].status.message();
      for (size_t c = 0; c < images[i].components.size(); ++c)
        EXPECT_TRUE(got[i].image.components[c].samples == images[i].components[c].samples) << i << " " << c;
    }
    const EngineCounts counts = engine.counts();
    EXPECT_EQ(counts.device_coders, ht ? 0 : 1) << "ht " << ht;  // Part 1: the decoder
    EXPECT_EQ(counts.device_contexts, 0) << "ht " << ht;
  }
}

// One image asked onto the device (device_for_one_item) gets it, where the
// placement rule alone would keep a small image on the CPU.
TEST(EngineCuda, OneImageGetsTheDeviceWhenAsked) {
  SKIP_WITHOUT_DEVICE();
  const Image image = testing::engine_test_image(256, 192, 3, 7);
  codec::EncodeOptions o;
  o.threads = 4;
  const std::vector<uint8_t> want = codec::encode(image, o).value();
  EngineOptions e;
  e.device = Device::kCuda;
  e.threads = 4;
  {
    Engine by_rule(e);
    ASSERT_TRUE(by_rule.encode(image, o).ok());
    EXPECT_EQ(by_rule.counts().device_coders, 0);
  }
  e.device_for_one_item = true;
  e.wait_for_device = true;
  Engine asked(e);
  for (int call = 0; call < 2; ++call) {
    const auto got = asked.encode(image, o);
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_TRUE(*got == want) << call;
  }
  EXPECT_EQ(asked.counts().device_coders, 1);
  EXPECT_EQ(asked.counts().lanes, 1);
}

// Options that name the device's stages ask for it for one item too: its
// tile goes to the device whole, encoded and decoded, HT or Part 1, the
// CPU path's file and samples.
TEST(EngineCuda, OneImageGoesWholeToTheDeviceWhenTheStagesAreNamed) {
  SKIP_WITHOUT_DEVICE();
  const Image image = testing::engine_test_image(256, 192, 3, 8);
  for (const bool ht : {false, true}) {
    codec::EncodeOptions o;
    o.threads = 4;
    o.style.ht = ht;
    const std::vector<uint8_t> want = codec::encode(image, o).value();
    EngineOptions e;
    e.device = Device::kCuda;
    e.threads = 4;
    e.device_stages = DeviceStages::kAll;
    Engine engine(e);
    const Result<Placement> placed = engine.prepare_encode(o, Workload{false, static_cast<uint64_t>(256 * 192 * 3)});
    ASSERT_TRUE(placed.ok()) << placed.status().message();
    EXPECT_TRUE(placed->device && placed->whole_tiles) << "ht " << ht;
    const auto got = engine.encode(image, o);
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_TRUE(*got == want) << "ht " << ht;
    const Result<Placement> decoding = engine.prepare_decode({}, Workload{false, 0});
    ASSERT_TRUE(decoding.ok()) << decoding.status().message();
    EXPECT_TRUE(decoding->device && decoding->whole_tiles) << "ht " << ht;
    const auto back = engine.decode(want, {});
    ASSERT_TRUE(back.ok()) << back.status().message();
    for (size_t c = 0; c < image.components.size(); ++c)
      EXPECT_TRUE(back->components[c].samples == image.components[c].samples) << "ht " << ht << " " << c;
    EXPECT_EQ(engine.counts().device_contexts, 2) << "ht " << ht;  // a context per direction
  }
}

// HT under a size or quality target with whole tiles named
// (--device-stages all): a batch's one-tile images and one image alone
// keep their tiles on the device through rate control by estimates
// (codec/stages/cuda/device_ht_rate.h), the CPU path's files.
TEST(EngineCuda, HtTargetsWithWholeTilesNamedKeepTheirTilesOnTheDevice) {
  SKIP_WITHOUT_DEVICE();
  const std::vector<Image> images = testing::engine_test_images();
  for (const codec::EncodeOptions::RateKind kind :
       {codec::EncodeOptions::RateKind::kRatio, codec::EncodeOptions::RateKind::kBitsPerPixel,
        codec::EncodeOptions::RateKind::kPsnr}) {
    codec::EncodeOptions o;
    o.threads = 4;
    o.style.ht = true;
    o.reversible = false;
    o.rate_kind = kind;
    o.rate_values = {kind == codec::EncodeOptions::RateKind::kRatio ? 20.0
                     : kind == codec::EncodeOptions::RateKind::kPsnr ? 40.0
                                                                      : 1.0};
    const std::vector<std::vector<uint8_t>> want = cpu_files(images, o);
    const std::vector<EncodeItem> items = items_of(images);
    EngineOptions e;
    e.device = Device::kCuda;
    e.threads = 4;
    e.files_at_once = 3;
    e.device_stages = DeviceStages::kAll;
    Engine engine(e);
    const std::vector<EncodeResult> got = engine.encode_batch(items, o);
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_TRUE(got[i].status.ok()) << i << ": " << got[i].status.message();
      EXPECT_TRUE(got[i].bytes == want[i]) << "item " << i << ", rate kind " << static_cast<int>(kind);
    }
    ASSERT_NE(engine.impl().encode_tiles(), nullptr);
    EXPECT_EQ(codec::device_tile_times(*engine.impl().encode_tiles()).tiles, images.size());
    EXPECT_TRUE(codec::device_tile_failure(*engine.impl().encode_tiles()).ok());
    Engine one(e);
    const Result<Placement> placed = one.prepare_encode(o, Workload{false, static_cast<uint64_t>(96 * 64 * 3)});
    ASSERT_TRUE(placed.ok()) << placed.status().message();
    EXPECT_TRUE(placed->device && placed->whole_tiles);
    const auto alone = one.encode(images[0], o);
    ASSERT_TRUE(alone.ok()) << alone.status().message();
    EXPECT_TRUE(*alone == want[0]) << "one image, rate kind " << static_cast<int>(kind);
    ASSERT_NE(one.impl().encode_tiles(), nullptr);
    EXPECT_EQ(codec::device_tile_times(*one.impl().encode_tiles()).tiles, 1u);
  }
}

// The image's rows for a streamed encode, top to bottom.
codec::RowSource rows_of(const Image& image, std::vector<int64_t>& next) {
  codec::RowSource s;
  s.layout = image;
  for (Component& c : s.layout.components) c.samples.clear();
  next.assign(image.components.size(), 0);
  s.read_rows = [&image, &next](int c, int64_t rows, int32_t* out) -> Status {
    const Component& comp = image.components[static_cast<size_t>(c)];
    std::copy_n(comp.samples.data() + next[static_cast<size_t>(c)] * comp.width, rows * comp.width, out);
    next[static_cast<size_t>(c)] += rows;
    return Status::Ok();
  };
  return s;
}

// One large-ish HT image encoded and decoded streamed through an engine on
// the device (its rows of code-blocks through the hybrid coders, as
// EngineOptions::device_for_one_item asks) and on the CPU: the same file
// and the same samples, with blocks coded and decoded on the device.
TEST(EngineCuda, OneStreamedHtImageOnTheDeviceIsTheCpusFileAndSamples) {
  SKIP_WITHOUT_DEVICE();
  // Wide enough that the decode's rows of code-blocks at full resolution
  // (three subbands of three planes) make batches the hybrid decoder sends
  // to the device (DeviceCoderOptions::min_device_blocks).
  const Image image = testing::engine_test_image(4096, 1024, 3, 38);
  for (const bool lossless : {true, false}) {
    codec::EncodeOptions o;
    o.threads = 8;
    o.style.ht = true;
    if (!lossless) {
      o.reversible = false;
      o.rate_kind = codec::EncodeOptions::RateKind::kRatio;
      o.rate_values = {20};
    }
    std::vector<std::vector<uint8_t>> files;
    std::vector<Image> decoded;
    for (const Device device : {Device::kCpu, Device::kCuda}) {
      EngineOptions e;
      e.device = device;
      e.threads = 8;
      e.device_for_one_item = device == Device::kCuda;
      e.wait_for_device = true;  // so that the device takes blocks however fast the CPU is
      Engine engine(e);
      std::vector<int64_t> next;
      std::vector<uint8_t> file;
      const codec::FileSink sink = [&](std::span<const uint8_t> piece) {
        file.insert(file.end(), piece.begin(), piece.end());
        return Status::Ok();
      };
      const Status encoded = engine.encode_streamed(rows_of(image, next), o, sink);
      ASSERT_TRUE(encoded.ok()) << encoded.message();
      codec::DecodeOptions d;
      d.threads = 8;
      codec::JoinedStrips strips;
      const Result<bool> done = engine.decode_streamed(file, d, strips);
      ASSERT_TRUE(done.ok()) << done.status().message();
      ASSERT_TRUE(*done);
      if (device == Device::kCuda) {
        ASSERT_NE(engine.impl().encoder(), nullptr);
        ASSERT_NE(engine.impl().decoder(), nullptr);
        EXPECT_GT(engine.impl().encoder()->device_times().device_blocks, 0u) << lossless;
        // At -r 20 most blocks carry no pass, and a row's coded blocks are
        // fewer than the hybrid decoder's smallest device batch
        // (DeviceCoderOptions::min_device_blocks): that decode stays on the
        // CPU, its samples still compared below.
        if (lossless) {
          EXPECT_GT(engine.impl().decoder()->device_times().device_blocks, 0u);
        }
      } else {
        EXPECT_EQ(engine.counts().device_coders, 0);
      }
      files.push_back(std::move(file));
      decoded.push_back(std::move(strips.image));
    }
    EXPECT_TRUE(files[0] == files[1]) << "lossless " << lossless << ": " << files[0].size() << " bytes on the CPU, "
                                      << files[1].size() << " on the device";
    ASSERT_EQ(decoded[0].components.size(), decoded[1].components.size());
    for (size_t c = 0; c < decoded[0].components.size(); ++c)
      EXPECT_TRUE(decoded[0].components[c].samples == decoded[1].components[c].samples) << lossless << " " << c;
  }
}

// Rasters asked for in device memory (DecodeItem::raster_on_device) hold
// the host raster's bytes: on the device engine (whole tiles, written on the
// device) and on the CPU engine (every tile copied up), of one tile and of
// several (on an image offset too); an image that gives no raster (12 bits)
// comes back on the host.
TEST(EngineCuda, DeviceRastersHoldTheHostRastersBytes) {
  SKIP_WITHOUT_DEVICE();
  std::vector<std::vector<uint8_t>> files;
  codec::EncodeOptions o;
  o.threads = 4;
  for (const Image& image : testing::engine_test_images()) files.push_back(codec::encode(image, o).value());
  codec::EncodeOptions tiled = o;
  tiled.tile_width = 32;
  tiled.tile_height = 24;
  files.push_back(codec::encode(testing::engine_test_image(96, 64, 3, 6), tiled).value());
  codec::EncodeOptions offset = tiled;  // the first tiles partly outside the image (B.3)
  offset.image_x0 = 5;
  offset.image_y0 = 3;
  files.push_back(codec::encode(testing::engine_test_image(90, 61, 3, 7), offset).value());
  codec::EncodeOptions lossy = tiled;
  lossy.reversible = false;
  files.push_back(codec::encode(testing::engine_test_image(200, 120, 3, 8), lossy).value());
  Image wide = make_image(40, 30, 1, 12, false).value();
  for (size_t i = 0; i < wide.components[0].samples.size(); ++i)
    wide.components[0].samples[i] = static_cast<int32_t>(i * 37 % 4096);
  files.push_back(codec::encode(wide, o).value());

  std::vector<DecodeItem> items(files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    items[i].data = files[i];
    items[i].raster = true;
    items[i].raster_on_device = true;
  }
  codec::DecodeOptions d;
  d.threads = 4;
  for (const Device device : {Device::kCuda, Device::kCpu}) {
    EngineOptions e;
    e.device = device;
    if (device == Device::kCuda) e.device_stages = DeviceStages::kAll;
    e.threads = 4;
    Engine engine(e);
    for (int call = 0; call < 2; ++call) {
      const std::vector<DecodeResult> got = engine.decode_batch(items, d);
      for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_TRUE(got[i].status.ok()) << i << ": " << got[i].status.message();
        std::vector<uint8_t> want;
        const Image host = codec::decode(files[i], d, nullptr, &want).value();
        EXPECT_TRUE(got[i].raster.empty()) << i;
        if (want.empty()) {
          EXPECT_FALSE(got[i].device_raster) << i;
          EXPECT_TRUE(got[i].image.components[0].samples == host.components[0].samples) << i;
          continue;
        }
        ASSERT_TRUE(got[i].device_raster) << i;
        std::vector<uint8_t> back(want.size());
        ASSERT_TRUE(codec::download_device_raster(got[i].device_raster.get(), back.size(), back.data()).ok());
        EXPECT_TRUE(back == want) << "device " << static_cast<int>(device) << ", call " << call << ", item " << i;
      }
    }
  }
}

}  // namespace
}  // namespace mallat
