// The decoder with whole tiles on the device (CallResources::device_tiles,
// codec/stages/device_tile_stages.h) gives the CPU
// path's samples, every one: lossless and 9/7 streams at rate targets and
// with every pass, tiles, mode switches, 16-bit grey, four components,
// signed 12-bit, a reduced resolution, as int32 samples and as a byte
// raster; HT streams (lossless, at a rate target, vertically causal); and a
// region decode, which the runner leaves to the CPU. Labelled gpu: without a device
// each test skips and says why.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "codec/codec.h"
#include "codec/decoder/decode_call.h"
#include "codec/stages/device_tile_stages.h"
#include "tests/codec/joined_strips.h"
#include "tests/entropy_cuda/cuda_cases.h"

namespace mallat::codec {
namespace {

// Where two decodes of one stream differ, or "".
std::string differs(const Image& want, const Image& got) {
  if (want.components.size() != got.components.size()) return "component counts differ";
  for (size_t c = 0; c < want.components.size(); ++c) {
    const Component &a = want.components[c], &b = got.components[c];
    if (a.width != b.width || a.height != b.height) return "component " + std::to_string(c) + "'s size differs";
    for (size_t i = 0; i < a.samples.size(); ++i) {
      if (a.samples[i] != b.samples[i]) {
        return "component " + std::to_string(c) + " sample " + std::to_string(i) + ": " +
               std::to_string(a.samples[i]) + " on the CPU, " + std::to_string(b.samples[i]) + " on the device";
      }
    }
  }
  return "";
}

std::vector<Case> decode_cases() {
  std::vector<Case> all = cases();
  EncodeOptions base;
  base.threads = 4;
  all.push_back({"lossless 4 components", photo_like(190, 130, 4, 8, 11), base});
  for (bool reversible : {true, false}) {
    Image signed12 = photo_like(170, 120, 3, 12, 12);
    for (Component& comp : signed12.components) {
      comp.is_signed = true;
      for (int32_t& v : comp.samples) v -= 2048;
    }
    EncodeOptions o = base;
    o.reversible = reversible;
    all.push_back({reversible ? "lossless signed 12-bit" : "-I signed 12-bit", std::move(signed12), o});
  }
  EncodeOptions one_level = base;
  one_level.resolutions = 2;
  all.push_back({"lossless 1 level, odd size", photo_like(65, 33, 3, 8, 13), one_level});
  EncodeOptions offset = base;
  offset.tile_width = offset.tile_height = 64;
  Image shifted = photo_like(150, 110, 3, 8, 14);
  shifted.x0 = 5;
  shifted.y0 = 3;
  all.push_back({"lossless tiles, image offset", std::move(shifted), offset});
  return all;
}

void whole_tiles_give_the_cpu_paths_samples(const std::shared_ptr<DeviceTileContext>& device) {
  int rasters = 0;
  for (const Case& c : decode_cases()) {
    const auto stream = encode(c.image, c.options);
    ASSERT_TRUE(stream.ok()) << c.name << ": " << stream.status().message();
    for (int reduce : {0, 1}) {
      DecodeOptions cpu;
      cpu.threads = 4;
      cpu.reduce = reduce;
      CallResources whole;
      whole.device_tiles = device;
      const uint64_t before = device_decode_times(*device).tiles;
      const auto want = decode(*stream, cpu);
      const auto got = decode(*stream, cpu, whole, nullptr, nullptr);
      ASSERT_TRUE(want.ok()) << c.name << ": " << want.status().message();
      ASSERT_TRUE(got.ok()) << c.name << ": " << got.status().message();
      EXPECT_EQ(differs(*want, *got), "") << c.name << ", reduce " << reduce;
      EXPECT_GT(device_decode_times(*device).tiles, before) << c.name << ", reduce " << reduce;
      // The samples as a raster (decode's raster overload): the device
      // runner interleaves its stored bytes into it; the CPU runner's bytes
      // where the image fits them, the same samples in the image where not.
      std::vector<uint8_t> want_raster, got_raster;
      const auto want_bytes = decode(*stream, cpu, nullptr, &want_raster);
      const auto got_bytes = decode(*stream, cpu, whole, nullptr, &got_raster);
      ASSERT_TRUE(want_bytes.ok() && got_bytes.ok()) << c.name;
      EXPECT_EQ(differs(*want_bytes, *got_bytes), "") << c.name << ", reduce " << reduce << ", raster";
      EXPECT_TRUE(want_raster == got_raster) << c.name << ", reduce " << reduce;
      rasters += !got_raster.empty();
    }
  }
  EXPECT_GT(rasters, 4);
  // A region (-d) goes to the CPU, with the same samples.
  const std::vector<Case> all = cases();
  const Case& lossy = all[1];
  const auto stream = encode(lossy.image, lossy.options);
  ASSERT_TRUE(stream.ok());
  DecodeOptions cpu;
  cpu.region = dwt::Rect{10, 20, 150, 120};
  CallResources whole;
  whole.device_tiles = device;
  const auto want = decode(*stream, cpu);
  const auto got = decode(*stream, cpu, whole, nullptr, nullptr);
  ASSERT_TRUE(want.ok() && got.ok());
  EXPECT_EQ(differs(*want, *got), "") << "region";
}

TEST(DecodeCuda, WholeTilesOnTheDeviceGiveTheCpuPathsSamples) {
  SKIP_WITHOUT_DEVICE();
  // Both starts: an encode's context (a slot makes its decoding side at its
  // first tile) and a decode's (made on the start-up thread, two slots).
  for (const bool for_decoding : {false, true}) {
    SCOPED_TRACE(for_decoding ? "started for decoding" : "started for encoding");
    std::shared_ptr<DeviceTileContext> device;
    if (for_decoding) {
      device = start_device_tile_context(2, 2, DeviceTileUse::kDecode);
      const Status started = wait_started(*device);
      ASSERT_TRUE(started.ok()) << started.message();
    } else {
      auto made = make_device_tile_context();
      ASSERT_TRUE(made.ok()) << made.status().message();
      device = *made;
    }
    whole_tiles_give_the_cpu_paths_samples(device);
  }
}

// An image decoded into a raster on the device comes down strip by strip
// (decode_from_device_raster): a sink taking byte rows gets the raster's
// rows in order, one taking int32 strips the same samples, an image that
// does not fit bytes its samples in one strip; every case the CPU's.
TEST(DecodeCuda, ARasterOnTheDeviceComesDownStripByStrip) {
  SKIP_WITHOUT_DEVICE();
  auto made = make_device_tile_context();
  ASSERT_TRUE(made.ok()) << made.status().message();
  CallResources whole;
  whole.device_tiles = *made;
  int strips = 0;
  for (const Case& c : decode_cases()) {
    const auto stream = encode(c.image, c.options);
    ASSERT_TRUE(stream.ok()) << c.name << ": " << stream.status().message();
    DecodeOptions cpu;
    cpu.threads = 4;
    const auto want = decode(*stream, cpu);
    ASSERT_TRUE(want.ok()) << c.name << ": " << want.status().message();
    for (const bool bytes : {true, false}) {
      CheckedStrips sink(bytes);
      const Result<bool> sent = decode_from_device_raster(*stream, cpu, whole, sink, nullptr, /*strip_bytes=*/3000);
      ASSERT_TRUE(sent.ok()) << c.name << ": " << sent.status().message();
      ASSERT_TRUE(*sent) << c.name;
      EXPECT_EQ(sink.begins, 1) << c.name;
      EXPECT_EQ(differs(*want, sink.image), "") << c.name << (bytes ? ", byte rows" : ", strips");
      strips += sink.byte_strips + sink.strips;
    }
  }
  EXPECT_GT(strips, 2 * static_cast<int>(decode_cases().size()));
}

// Damaged code-block bytes (the stream's packet data XORed at a few places
// after SOD, A.4.5) decode on the device as on the CPU: the same status,
// and where the decode succeeds the same samples, so the device's MQ
// decoder reads garbage, runs past a segment's end and meets 0xFF bytes
// as the CPU's does. Damage that hits a packet header fails in Tier-2 on
// both paths alike.
TEST(DecodeCuda, DamagedCodeBlockBytesGiveTheCpuPathsResult) {
  SKIP_WITHOUT_DEVICE();
  auto device = make_device_tile_context();
  ASSERT_TRUE(device.ok()) << device.status().message();
  std::vector<Case> all = cases();
  all.resize(2);  // lossless and -I
  int decoded_on_device = 0;
  for (const Case& c : all) {
    const auto stream = encode(c.image, c.options);
    ASSERT_TRUE(stream.ok()) << c.name;
    size_t sod = 0;
    for (size_t i = 0; i + 1 < stream->size() && sod == 0; ++i) {
      if ((*stream)[i] == 0xFF && (*stream)[i + 1] == 0x93) sod = i + 2;
    }
    ASSERT_GT(sod, 0u) << c.name;
    const size_t body = stream->size() - 2 - sod;  // up to EOC
    for (uint32_t seed = 1; seed <= 12; ++seed) {
      std::vector<uint8_t> damaged = *stream;
      uint32_t x = seed * 2654435761u;
      for (int k = 0; k < 6; ++k) {
        x = x * 1664525u + 1013904223u;
        damaged[sod + (x >> 8) % body] ^= static_cast<uint8_t>(1 + (x & 0x7F));
      }
      DecodeOptions cpu;
      cpu.threads = 4;
      CallResources whole;
      whole.device_tiles = *device;
      const uint64_t before = device_decode_times(**device).tiles;
      const auto want = decode(damaged, cpu);
      const auto got = decode(damaged, cpu, whole, nullptr, nullptr);
      const std::string where = c.name + ", seed " + std::to_string(seed);
      ASSERT_EQ(want.ok(), got.ok()) << where << ": " << (want.ok() ? got : want).status().message();
      if (!want.ok()) {
        EXPECT_EQ(want.status().message(), got.status().message()) << where;
        continue;
      }
      EXPECT_EQ(differs(*want, *got), "") << where;
      decoded_on_device += device_decode_times(**device).tiles > before;
    }
  }
  // Not vacuous: most damage lands in code-block bytes and decodes.
  EXPECT_GE(decoded_on_device, 6);
}

// A tile whose run fails on the device (a failure injected after the run,
// as a launch's error found at the end) is decoded again on the CPU, into
// the raster the device had written: the CPU path's samples, a warning
// that says so, and every later tile on the CPU.
TEST(DecodeCuda, ATileThatFailsOnTheDeviceIsDecodedOnTheCpu) {
  SKIP_WITHOUT_DEVICE();
  auto device = make_device_tile_context();
  ASSERT_TRUE(device.ok()) << device.status().message();
  EncodeOptions tiled;
  tiled.threads = 4;
  tiled.tile_width = tiled.tile_height = 128;
  for (const bool ht : {false, true}) {
    const std::string what = ht ? "HT" : "Part 1";
    tiled.style.ht = ht;
    const Image image = photo_like(300, 200, 3, 8, ht ? 31 : 32);
    const auto stream = encode(image, tiled);
    ASSERT_TRUE(stream.ok()) << what;
    DecodeOptions cpu;
    cpu.threads = 4;
    std::vector<uint8_t> want_raster, got_raster;
    const auto want = decode(*stream, cpu, nullptr, &want_raster);
    ASSERT_TRUE(want.ok()) << what;
    CallResources whole;
    whole.device_tiles = *device;
    inject_device_tile_failures(**device, 1);
    DecodeReport report;
    const auto got = decode(*stream, cpu, whole, &report, &got_raster);
    ASSERT_TRUE(got.ok()) << what << ": " << got.status().message();
    EXPECT_TRUE(want_raster == got_raster) << what;
    int moved = 0;
    for (const std::string& w : report.warnings) moved += w.find("the device failed") != std::string::npos;
    EXPECT_EQ(moved, 1) << what;
    EXPECT_FALSE(device_tile_failure(**device).ok()) << what;
    // The context is given up: later tiles run on the CPU, no warning.
    DecodeReport after;
    const auto again = decode(*stream, cpu, whole, &after, nullptr);
    ASSERT_TRUE(again.ok()) << what;
    EXPECT_TRUE(after.warnings.empty()) << what;
    device = make_device_tile_context();  // a fresh one for the next coder
    ASSERT_TRUE(device.ok());
  }
}

// A lossless tile of noise as a batch decodes it, its slots shared: its
// blocks long (16 a warp, device_decode_slot.cc's rule) and its codeword
// bytes more than common/host_staging.h pins (up through the staged
// copier); the CPU path's samples, as int32 samples and as a raster.
TEST(DecodeCuda, LongBlocksAndStagedBytesGiveTheCpuPathsSamples) {
  SKIP_WITHOUT_DEVICE();
  const std::shared_ptr<DeviceTileContext> shared = start_device_tile_context(2, 2, DeviceTileUse::kDecode);
  ASSERT_TRUE(wait_started(*shared).ok());
  Image noise = make_image(1300, 1300, 3, 8, false).value();
  std::mt19937 rng(21);
  for (Component& comp : noise.components)
    for (int32_t& v : comp.samples) v = static_cast<int32_t>(rng() & 0xFF);
  EncodeOptions lossless;
  lossless.threads = 4;
  const auto stream = encode(noise, lossless);
  ASSERT_TRUE(stream.ok()) << stream.status().message();
  ASSERT_GT(stream->size(), size_t{5} << 20);  // the bytes go up staged
  DecodeOptions cpu;
  cpu.threads = 4;
  CallResources whole;
  whole.device_tiles = shared;
  const auto want = decode(*stream, cpu);
  ASSERT_TRUE(want.ok()) << want.status().message();
  const auto got = decode(*stream, cpu, whole, nullptr, nullptr);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(differs(*want, *got), "");
  std::vector<uint8_t> want_raster, got_raster;
  ASSERT_TRUE(decode(*stream, cpu, nullptr, &want_raster).ok());
  ASSERT_TRUE(decode(*stream, cpu, whole, nullptr, &got_raster).ok());
  EXPECT_FALSE(got_raster.empty());
  EXPECT_TRUE(want_raster == got_raster);
  EXPECT_EQ(device_decode_times(*shared).tiles, 2u);  // both decodes on the device
}

// A batch's lanes share the runner's slots: four callers on threads of
// their own, 2 slots, every image the CPU path's, every tile counted once.
TEST(DecodeCuda, LanesSharingTheRunnersSlotsGiveTheCpuPathsSamples) {
  SKIP_WITHOUT_DEVICE();
  const std::shared_ptr<DeviceTileContext> shared = start_device_tile_context(2, 2);
  ASSERT_TRUE(wait_started(*shared).ok());
  std::vector<Case> all = cases();
  all.resize(4);  // one tile each
  std::vector<std::vector<uint8_t>> streams;
  std::vector<Image> want;
  for (const Case& c : all) {
    auto s = encode(c.image, c.options);
    ASSERT_TRUE(s.ok()) << c.name;
    streams.push_back(std::move(s).value());
    DecodeOptions cpu;
    auto w = decode(streams.back(), cpu);
    ASSERT_TRUE(w.ok()) << c.name;
    want.push_back(std::move(w).value());
  }
  std::vector<std::string> wrong(all.size());
  std::vector<std::thread> lanes;
  for (size_t i = 0; i < all.size(); ++i) {
    lanes.emplace_back([&, i] {
      DecodeOptions o;
      o.threads = 2;
      CallResources slots;
      slots.device_tiles = shared;
      for (int round = 0; round < 3; ++round) {
        const auto got = decode(streams[i], o, slots, nullptr, nullptr);
        if (!got.ok()) wrong[i] = got.status().message();
        else if (const std::string d = differs(want[i], *got); !d.empty()) wrong[i] = d;
      }
    });
  }
  for (std::thread& t : lanes) t.join();
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(wrong[i], "") << all[i].name;
  EXPECT_EQ(device_decode_times(*shared).tiles, 3 * all.size());
}

}  // namespace
}  // namespace mallat::codec
