// mallat::Engine on the CPU (codec/api/engine.h): a batch through one engine
// twice makes its lanes (a pool and a DWT backend each) once; a bad item in
// the middle of a batch fails alone, the others coming out in order and
// equal to single-image results; in-memory and path inputs give the same
// files and images; the hooks replace reading and writing; rasters written
// out are reused; stage times come back in the reports.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "codec/api/engine.h"
#include "codec/codec.h"
#include "codec/stages/device_raster.h"
#include "io/file.h"
#include "io/image_io.h"
#include "tests/codec/joined_strips.h"
#include "tests/engine/engine_images.h"
#include "tests/testdata.h"

namespace mallat {
namespace {

using testing::engine_test_images;

codec::EncodeOptions lossy() {
  codec::EncodeOptions o;
  o.threads = 2;
  o.reversible = false;
  o.rate_kind = codec::EncodeOptions::RateKind::kRatio;
  o.rate_values = {20};
  return o;
}

EngineOptions two_lanes() {
  EngineOptions e;
  e.threads = 2;
  e.files_at_once = 2;
  return e;
}

// What codec::encode gives each image alone.
std::vector<std::vector<uint8_t>> single_files(const std::vector<Image>& images, const codec::EncodeOptions& o) {
  std::vector<std::vector<uint8_t>> files;
  for (const Image& image : images) files.push_back(codec::encode(image, o).value());
  return files;
}

bool same_samples(const Image& a, const Image& b) {
  if (a.components.size() != b.components.size()) return false;
  for (size_t c = 0; c < a.components.size(); ++c)
    if (a.components[c].samples != b.components[c].samples) return false;
  return true;
}

TEST(Engine, ASecondBatchReusesTheLanesTheFirstMade) {
  const std::vector<Image> images = engine_test_images();
  const codec::EncodeOptions o = lossy();
  const std::vector<std::vector<uint8_t>> want = single_files(images, o);
  std::vector<EncodeItem> items(images.size());
  for (size_t i = 0; i < images.size(); ++i) items[i].image = &images[i];
  Engine engine(two_lanes());
  EXPECT_EQ(engine.counts().lanes, 0);  // made on first use
  for (int call = 0; call < 2; ++call) {
    const std::vector<EncodeResult> got = engine.encode_batch(items, o);
    ASSERT_EQ(got.size(), images.size());
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_TRUE(got[i].status.ok()) << i << ": " << got[i].status.message();
      EXPECT_TRUE(got[i].bytes == want[i]) << "call " << call << ", item " << i;
    }
    const EngineCounts counts = engine.counts();
    EXPECT_EQ(counts.lanes, 2) << "call " << call;
    EXPECT_EQ(counts.thread_pools, 2) << "call " << call;
    EXPECT_EQ(counts.device_coders, 0);
    EXPECT_EQ(counts.device_contexts, 0);
  }
  EXPECT_FALSE(engine.device_started());

  // Decoding: its own lanes, made once too; the images are decode()'s.
  std::vector<DecodeItem> coded(want.size());
  for (size_t i = 0; i < want.size(); ++i) coded[i].data = want[i];
  codec::DecodeOptions d;
  d.threads = 2;
  for (int call = 0; call < 2; ++call) {
    const std::vector<DecodeResult> got = engine.decode_batch(coded, d);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_TRUE(got[i].status.ok()) << i << ": " << got[i].status.message();
      EXPECT_TRUE(same_samples(got[i].image, codec::decode(want[i], d).value())) << "call " << call << ", item " << i;
    }
    EXPECT_EQ(engine.counts().lanes, 4) << "call " << call;
  }
  // A single call takes a lane of every engine thread: the batches' lanes
  // shared the two threads (one each), so one more lane, made once.
  for (int call = 0; call < 2; ++call) {
    const auto one = engine.encode(images[0], o);
    ASSERT_TRUE(one.ok()) << one.status().message();
    EXPECT_TRUE(*one == want[0]);
    EXPECT_EQ(engine.counts().lanes, 5);
  }
}

TEST(Engine, ABadItemFailsAloneAndTheOthersComeOutInOrder) {
  std::vector<Image> images = engine_test_images();
  const codec::EncodeOptions o = lossy();
  const std::vector<std::vector<uint8_t>> want = single_files(images, o);
  const Image empty;  // no components: encode refuses it
  std::vector<EncodeItem> items(images.size());
  for (size_t i = 0; i < images.size(); ++i) items[i].image = &images[i];
  items[2].image = &empty;
  std::vector<size_t> done;
  EncodeHooks hooks;
  hooks.done = [&](size_t i, EncodeResult& result) {
    done.push_back(i);
    EXPECT_EQ(result.status.ok(), i != 2) << i;
  };
  Engine engine(two_lanes());
  const std::vector<EncodeResult> got = engine.encode_batch(items, o, hooks);
  ASSERT_EQ(got.size(), images.size());
  EXPECT_EQ(done, (std::vector<size_t>{0, 1, 2, 3, 4}));
  for (size_t i = 0; i < got.size(); ++i) {
    if (i == 2) {
      EXPECT_FALSE(got[i].status.ok());
      EXPECT_TRUE(got[i].bytes.empty());
      continue;
    }
    ASSERT_TRUE(got[i].status.ok()) << i << ": " << got[i].status.message();
    EXPECT_TRUE(got[i].bytes == want[i]) << i;
  }

  // Decoding: damaged bytes in the middle (no codestream at all), and a
  // missing file named by its path.
  std::vector<DecodeItem> coded(want.size() + 1);
  for (size_t i = 0; i < want.size(); ++i) coded[i].data = want[i];
  const std::vector<uint8_t> junk(100, 0x5A);
  coded[1].data = junk;
  coded[want.size()].path = "/nonexistent/engine-test.j2k";
  codec::DecodeOptions d;
  d.threads = 2;
  const std::vector<DecodeResult> decoded = engine.decode_batch(coded, d);
  ASSERT_EQ(decoded.size(), coded.size());
  for (size_t i = 0; i < want.size(); ++i) {
    if (i == 1) {
      EXPECT_FALSE(decoded[i].status.ok());
      continue;
    }
    ASSERT_TRUE(decoded[i].status.ok()) << i << ": " << decoded[i].status.message();
    EXPECT_TRUE(same_samples(decoded[i].image, codec::decode(want[i], d).value())) << i;
  }
  EXPECT_FALSE(decoded.back().status.ok());
  EXPECT_NE(decoded.back().status.message().find("engine-test.j2k"), std::string::npos)
      << decoded.back().status.message();
}

TEST(Engine, PathsAndMemoryGiveTheSameFilesAndImages) {
  namespace fs = std::filesystem;
  const fs::path dir = testing::make_temp_dir("engine-paths");
  const std::vector<Image> images = engine_test_images();
  codec::EncodeOptions o;
  o.threads = 2;
  std::vector<EncodeItem> in_memory(images.size()), from_paths(images.size());
  for (size_t i = 0; i < images.size(); ++i) {
    const fs::path path = dir / ("image" + std::to_string(i) + (images[i].num_components() == 1 ? ".pgm" : ".ppm"));
    ASSERT_TRUE(io::write_image(images[i], path).ok());
    in_memory[i].image = &images[i];
    from_paths[i].path = path.string();
  }
  Engine engine(two_lanes());
  const std::vector<EncodeResult> a = engine.encode_batch(in_memory, o);
  // The write hook takes the bytes: they go to files that decode reads back.
  std::vector<fs::path> written(images.size());
  EncodeHooks hooks;
  hooks.write = [&](size_t i, EncodeResult& result) {
    written[i] = dir / ("coded" + std::to_string(i) + ".j2k");
    return io::write_file_atomically(written[i], result.bytes);
  };
  const std::vector<EncodeResult> b = engine.encode_batch(from_paths, o, hooks);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_TRUE(a[i].status.ok() && b[i].status.ok()) << i;
    EXPECT_TRUE(a[i].bytes == b[i].bytes) << i;
    EXPECT_TRUE(io::read_file(written[i]).value() == a[i].bytes) << i;
  }

  codec::DecodeOptions d;
  d.threads = 2;
  std::vector<DecodeItem> memory_items(a.size()), path_items(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    memory_items[i].data = a[i].bytes;
    path_items[i].path = written[i].string();
  }
  const std::vector<DecodeResult> x = engine.decode_batch(memory_items, d);
  const std::vector<DecodeResult> y = engine.decode_batch(path_items, d);
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_TRUE(x[i].status.ok() && y[i].status.ok()) << i;
    EXPECT_TRUE(same_samples(x[i].image, y[i].image)) << i;
    EXPECT_TRUE(same_samples(x[i].image, images[i])) << i;  // lossless
  }
  // A read hook stands in for the files.
  DecodeHooks read_hook;
  read_hook.read = [&](size_t i) { return io::read_file(written[i]); };
  std::vector<DecodeItem> named(a.size());
  for (size_t i = 0; i < a.size(); ++i) named[i].path = "not read: the hook reads";
  const std::vector<DecodeResult> z = engine.decode_batch(named, d, read_hook);
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_TRUE(z[i].status.ok()) << i << ": " << z[i].status.message();
    EXPECT_TRUE(same_samples(z[i].image, images[i])) << i;
  }
  fs::remove_all(dir);
}

// The CLI's way: the write hook writes each raster out and leaves it, the
// engine reuses its memory for a later item (codec/api/decode.h). Each
// raster left is poisoned, so a later item that reused one and did not
// write every sample would show it; sizes shrink and grow between items.
TEST(Engine, RastersWrittenOutAreReusedAndWrittenOverWhole) {
  std::vector<Image> images;
  for (const int w : {96, 40, 120, 96, 64, 130}) images.push_back(testing::engine_test_image(w, 48 + w / 4, 3, w));
  codec::EncodeOptions o;
  o.threads = 2;
  o.tile_width = o.tile_height = 32;  // tiles: each writes its own part
  std::vector<std::vector<uint8_t>> coded = single_files(images, o);
  std::vector<DecodeItem> items(coded.size());
  for (size_t i = 0; i < coded.size(); ++i) {
    items[i].data = coded[i];
    items[i].raster = true;
  }
  codec::DecodeOptions d;
  d.threads = 2;
  EngineOptions one_at_a_time;
  one_at_a_time.threads = 2;
  one_at_a_time.files_at_once = 1;
  Engine engine(one_at_a_time);
  std::vector<int> checked(items.size(), 0);
  DecodeHooks hooks;
  hooks.write = [&](size_t i, DecodeResult& result) {
    const Image& image = images[i];
    const size_t n = static_cast<size_t>(image.width() * image.height());
    EXPECT_EQ(result.raster.size(), n * 3) << i;
    if (result.raster.size() != n * 3) return Status::Ok();
    for (size_t p = 0; p < n; ++p)
      for (size_t c = 0; c < 3; ++c)
        if (result.raster[p * 3 + c] != image.components[c].samples[p]) {
          ADD_FAILURE() << "item " << i << ", sample " << p << ", component " << c;
          return Status::Ok();
        }
    checked[i] = 1;
    std::fill(result.raster.begin(), result.raster.end(), uint8_t{0xA5});
    return Status::Ok();
  };
  for (int call = 0; call < 2; ++call) {
    std::fill(checked.begin(), checked.end(), 0);
    const std::vector<DecodeResult> got = engine.decode_batch(items, d, hooks);
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_TRUE(got[i].status.ok()) << i << ": " << got[i].status.message();
      EXPECT_TRUE(got[i].raster.empty()) << i << ": the engine took it back";
      EXPECT_EQ(checked[i], 1) << i;
    }
  }
}

TEST(Engine, StageTimesComeBackInTheReport) {
  const Image image = testing::engine_test_image(300, 200, 3, 9);
  EngineOptions e;
  e.threads = 2;
  e.time_stages = true;
  Engine engine(e);
  const codec::EncodeOptions o = lossy();
  codec::EncodeReport report;
  const auto bytes = engine.encode(image, o, &report);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  EXPECT_TRUE(*bytes == codec::encode(image, o).value());
  EXPECT_GT(report.stage_times.dwt_ms, 0);
  EXPECT_GT(report.stage_times.block_coding_ms, 0);
  EXPECT_GT(report.stage_times.tier2_ms, 0);
  codec::DecodeReport decoded;
  codec::DecodeOptions d;
  ASSERT_TRUE(engine.decode(*bytes, d, &decoded).ok());
  EXPECT_GT(decoded.stage_times.dwt_ms, 0);
  EXPECT_GT(decoded.stage_times.block_coding_ms, 0);
}

// A CPU batch offers each item to DecodeHooks::stream: the items it takes
// are decoded strip by strip on their lanes into its sinks, the samples
// decode() gives, and never reach `write`; the items it declines are
// decoded whole.
TEST(Engine, ACpuBatchDecodesItemsStripByStripWhereTheStreamHookTakesThem) {
  const std::vector<Image> images = engine_test_images();
  const std::vector<std::vector<uint8_t>> files = single_files(images, lossy());
  std::vector<DecodeItem> items(files.size());
  for (size_t i = 0; i < files.size(); ++i) items[i].data = files[i];
  std::vector<codec::JoinedStrips> sinks(files.size());
  std::vector<char> written(files.size(), 0);
  DecodeHooks hooks;
  hooks.stream = [&](size_t i, std::span<const uint8_t> data, const DecodeHooks::StreamedDecode& decode) {
    EXPECT_EQ(data.data(), files[i].data());
    if (i == 1) return false;  // declined: decoded whole
    const Result<bool> taken = decode(sinks[i]);
    EXPECT_TRUE(taken.ok()) << taken.status().message();
    return taken.ok() && *taken;
  };
  hooks.write = [&](size_t i, DecodeResult&) {
    written[i] = 1;
    return Status::Ok();
  };
  codec::DecodeOptions d;
  d.threads = 2;
  Engine engine(two_lanes());
  const std::vector<DecodeResult> got = engine.decode_batch(items, d, hooks);
  ASSERT_EQ(got.size(), files.size());
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(i);
    ASSERT_TRUE(got[i].status.ok()) << got[i].status.message();
    const Image want = codec::decode(files[i], d).value();
    EXPECT_EQ(got[i].streamed, i != 1);
    EXPECT_EQ(written[i] != 0, i == 1);
    EXPECT_TRUE(same_samples(i == 1 ? got[i].image : sinks[i].image, want));
  }
}

// A batch codes its items on its lanes' own threads (engine/lanes.h,
// Lane::coder): as many threads code as there are lanes, none of them an item's
// reading thread, and what a code step throws there becomes that item's error
// while the others decode.
TEST(Engine, ABatchCodesOnItsLanesThreadsAndAThrowIsThatItemsError) {
  const std::vector<Image> images = engine_test_images();
  const std::vector<std::vector<uint8_t>> files = single_files(images, lossy());
  std::vector<DecodeItem> items(files.size() * 2);
  std::mutex mutex;
  std::set<std::thread::id> readers, coders;
  DecodeHooks hooks;
  hooks.read = [&](size_t i) -> Result<std::vector<uint8_t>> {
    const std::lock_guard<std::mutex> lock(mutex);
    readers.insert(std::this_thread::get_id());
    return files[i % files.size()];
  };
  hooks.stream = [&](size_t i, std::span<const uint8_t>, const DecodeHooks::StreamedDecode&) -> bool {
    {
      const std::lock_guard<std::mutex> lock(mutex);
      coders.insert(std::this_thread::get_id());
    }
    if (i == 1) throw std::runtime_error("thrown on the lane");
    return false;  // decoded whole
  };
  codec::DecodeOptions d;
  d.threads = 2;
  Engine engine(two_lanes());
  const std::vector<DecodeResult> got = engine.decode_batch(items, d, hooks);
  ASSERT_EQ(got.size(), items.size());
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(i);
    if (i == 1) {
      EXPECT_EQ(got[i].status.message(), "thrown on the lane");
      continue;
    }
    ASSERT_TRUE(got[i].status.ok()) << got[i].status.message();
    EXPECT_TRUE(same_samples(got[i].image, codec::decode(files[i % files.size()], d).value()));
  }
  EXPECT_LE(coders.size(), 2u);
  for (const std::thread::id& coder : coders) EXPECT_EQ(readers.count(coder), 0u);
}

// A CPU batch asks EncodeHooks::streams in each item's read step: an item
// it takes is never read and is encoded strip by strip on its lane through
// `stream` (encode()'s bytes, `write` not called, the size hint told the
// file's size before its first byte); the others as without it.
TEST(Engine, ACpuBatchEncodesItemsStripByStripWhereTheStreamHooksTakeThem) {
  namespace fs = std::filesystem;
  const fs::path dir = testing::make_temp_dir("engine-stream-encode");
  const std::vector<Image> images = engine_test_images();
  const codec::EncodeOptions o = lossy();
  const std::vector<std::vector<uint8_t>> want = single_files(images, o);
  std::vector<EncodeItem> items(images.size());
  for (size_t i = 0; i < images.size(); ++i) items[i].path = (dir / ("missing" + std::to_string(i))).string();
  std::vector<std::vector<uint8_t>> streamed(images.size());
  std::vector<char> written(images.size(), 0);
  std::vector<int64_t> hinted(images.size(), -1);  // the size told, before the first byte
  EncodeHooks hooks;
  // Item 1 is declined, so read: from memory here.
  hooks.read = [&](size_t i) -> Result<Image> {
    EXPECT_EQ(i, 1u);
    return images[i];
  };
  hooks.streams = [&](size_t i) { return i != 1; };
  hooks.stream = [&](size_t i, const EncodeHooks::StreamedEncode& encode) {
    codec::RowSource source;
    source.layout = images[i];
    for (Component& c : source.layout.components) c.samples = {};
    std::vector<int64_t> next(images[i].components.size(), 0);
    source.read_rows = [&, i](int c, int64_t rows, int32_t* out) {
      const Component& from = images[i].components[static_cast<size_t>(c)];
      const int32_t* at = from.samples.data() + next[static_cast<size_t>(c)] * from.width;
      std::copy(at, at + rows * from.width, out);
      next[static_cast<size_t>(c)] += rows;
      return Status::Ok();
    };
    const codec::FileSizeHint size = [&, i](uint64_t bytes) {
      EXPECT_TRUE(streamed[i].empty());
      hinted[i] = static_cast<int64_t>(bytes);
    };
    return encode(source, [&, i](std::span<const uint8_t> piece) {
      streamed[i].insert(streamed[i].end(), piece.begin(), piece.end());
      return Status::Ok();
    }, &size);
  };
  hooks.write = [&](size_t i, EncodeResult&) {
    written[i] = 1;
    return Status::Ok();
  };
  Engine engine(two_lanes());
  const std::vector<EncodeResult> got = engine.encode_batch(items, o, hooks);
  ASSERT_EQ(got.size(), images.size());
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(i);
    ASSERT_TRUE(got[i].status.ok()) << got[i].status.message();
    EXPECT_EQ(got[i].streamed, i != 1);
    EXPECT_EQ(written[i] != 0, i == 1);
    EXPECT_TRUE((i == 1 ? got[i].bytes : streamed[i]) == want[i]);
    EXPECT_EQ(hinted[i], i == 1 ? -1 : static_cast<int64_t>(want[i].size()));
  }
  fs::remove_all(dir);
}

// Without a device in the build or the machine, kAuto stays on the CPU
// with the same files; kCpu never starts a device.
TEST(Engine, TheCpuEngineStartsNoDevice) {
  const std::vector<Image> images = engine_test_images();
  const codec::EncodeOptions o = lossy();
  std::vector<EncodeItem> items(images.size());
  for (size_t i = 0; i < images.size(); ++i) items[i].image = &images[i];
  Engine engine(two_lanes());
  const Result<Placement> placed = engine.prepare_encode(o, Workload{true, 0});
  ASSERT_TRUE(placed.ok()) << placed.status().message();
  EXPECT_FALSE(placed->device);
  EXPECT_FALSE(placed->whole_tiles);
  EXPECT_EQ(placed->files_at_once, 2);
  EXPECT_EQ(placed->files_ahead, 2);
  engine.encode_batch(items, o);
  EXPECT_FALSE(engine.device_started());
  EXPECT_EQ(engine.counts().device_coders, 0);
}

// A raster asked for in device memory (DecodeItem::raster_on_device) where
// there is none to have (no CUDA in the build, or no device): each such item
// fails with kDeviceError saying why, and an item that did not ask for it in
// the same batch decodes as ever. With a device, engine_cuda_test covers it.
TEST(Engine, DeviceRasterWithoutADeviceIsADeviceError) {
  if (codec::device_raster_ready().ok()) GTEST_SKIP() << "a device is here: engine_cuda_test checks its rasters";
  const Image image = testing::engine_test_image(40, 24, 3, 9);
  const std::vector<uint8_t> file = codec::encode(image, lossy()).value();
  std::vector<DecodeItem> items(2);
  for (DecodeItem& item : items) {
    item.data = file;
    item.raster = true;
  }
  items[0].raster_on_device = true;
  Engine engine(two_lanes());
  const std::vector<DecodeResult> got = engine.decode_batch(items, {});
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].status.code(), ErrorCode::kDeviceError);
  EXPECT_NE(got[0].status.message().find("device output"), std::string::npos) << got[0].status.message();
  EXPECT_FALSE(got[0].device_raster);
  ASSERT_TRUE(got[1].status.ok()) << got[1].status.message();
  EXPECT_EQ(got[1].raster.size(), size_t{40 * 24 * 3});
}

}  // namespace
}  // namespace mallat
