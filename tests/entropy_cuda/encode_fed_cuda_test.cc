// A streamed encode whose one tile the device runner takes whole, its rows
// fed strip by strip into device memory (codec::streamed_encode_feeds_device,
// EncodeTile::feed): the CPU path's file byte for byte, its rows read once;
// a device failure reads them again (RowSource::rewind) and codes them on
// the CPU, the same file and a note; a source that cannot rewind is never
// fed. Labelled gpu: without a device each test skips and says why.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "codec/codec.h"
#include "codec/api/encode_streamed.h"
#include "codec/encoder/encode_call.h"
#include "codec/stages/device_tile_stages.h"
#include "tests/codec/encode_streamed_rows.h"
#include "tests/entropy_cuda/cuda_cases.h"

namespace mallat::codec {
namespace {

struct Fed {
  std::vector<uint8_t> file;
  int rewinds = 0;
  EncodeReport report;
};

// How the fed rows come: by component, read together, or read together at
// their stored width as well (RowSource::read_together_stored).
enum class Rows { kByComponent, kTogether, kStored };

// Rows [first, first + rows) of `image` at their stored width, for
// read_together_stored.
StoredRowConversion stored_rows(const Image& image, int64_t first, int64_t rows) {
  return [&image, first, rows](int64_t y0, int64_t y1, uint8_t* const* out) -> Status {
    if (y0 < 0 || y1 > rows || y0 > y1) return invalid_argument("rows converted beyond those read");
    for (size_t c = 0; c < image.components.size(); ++c) {
      const Component& comp = image.components[c];
      const int bytes = stored_bytes(comp.precision);
      for (int64_t i = 0; i < (y1 - y0) * comp.width; ++i) {
        const int32_t v = comp.samples[static_cast<size_t>((first + y0) * comp.width + i)];
        std::memcpy(out[c] + i * bytes, &v, static_cast<size_t>(bytes));  // little-endian host
      }
    }
    return Status::Ok();
  };
}

// `image` encoded streamed with the runner's context `device`, from its
// rows as `how` says, rewinding where `can_rewind`.
Result<Fed> fed(const Image& image, const EncodeOptions& o, DeviceTileContext* device, Rows how, bool can_rewind) {
  Fed out;
  ImageRows rows{image, {}, how != Rows::kByComponent};
  RowSource source = rows.source();
  int64_t next_stored = 0;
  if (how == Rows::kStored) {
    source.read_together_stored = [&](int64_t n) -> Result<StoredRowConversion> {
      if (next_stored + n > image.components[0].height) return invalid_argument("rows beyond the image");
      next_stored += n;
      return stored_rows(image, next_stored - n, n);
    };
  }
  if (can_rewind) {
    source.rewind = [&]() -> Status {
      ++out.rewinds;
      rows.next.assign(image.components.size(), 0);
      rows.next_together = 0;
      next_stored = 0;
      return Status::Ok();
    };
  }
  CallResources resources;
  if (device) resources.device_tiles = std::shared_ptr<DeviceTileContext>(device, [](DeviceTileContext*) {});
  const FileSink sink = [&](std::span<const uint8_t> piece) {
    out.file.insert(out.file.end(), piece.begin(), piece.end());
    return Status::Ok();
  };
  MALLAT_RETURN_IF_ERROR(encode_streamed(source, o, resources, sink, &out.report));
  return out;
}

std::vector<std::pair<std::string, EncodeOptions>> fed_cases() {
  std::vector<std::pair<std::string, EncodeOptions>> all;
  EncodeOptions lossless;
  lossless.threads = 4;
  all.emplace_back("lossless", lossless);
  EncodeOptions lossy = lossless;
  lossy.reversible = false;
  lossy.rate_kind = EncodeOptions::RateKind::kRatio;
  lossy.rate_values = {20};
  all.emplace_back("-I -r 20", lossy);
  EncodeOptions ht = lossless;
  ht.style.ht = true;
  all.emplace_back("HT lossless", ht);
  return all;
}

TEST(EncodeFedCuda, AFedTileIsTheCpuPathsFileItsRowsReadOnce) {
  SKIP_WITHOUT_DEVICE();
  // Tall enough for several strips of the feed (16 MiB of int32 rows); and
  // 12-bit grey, two bytes a stored sample.
  for (const Image& image : {test_image(1500, 1200, 3, 8, false, 91), test_image(1100, 900, 1, 12, false, 94)})
  for (const auto& [name, o] : fed_cases()) {
    ASSERT_TRUE(streamed_encode_feeds_device(image, o)) << name;
    const auto want = encode(image, o);
    ASSERT_TRUE(want.ok()) << name << ": " << want.status().message();
    for (const Rows how : {Rows::kByComponent, Rows::kTogether, Rows::kStored}) {
      const std::string what = name + (how == Rows::kStored ? ", stored" : how == Rows::kTogether ? ", together" : "");
      auto device = make_device_tile_context();
      ASSERT_TRUE(device.ok()) << device.status().message();
      const auto got = fed(image, o, device->get(), how, true);
      ASSERT_TRUE(got.ok()) << what << ": " << got.status().message();
      EXPECT_TRUE(want.value() == got->file) << what << ": " << want->size() << " bytes on the CPU, "
                                             << got->file.size() << " fed";
      EXPECT_EQ(got->rewinds, 0) << what;
      EXPECT_EQ(device_tile_times(**device).tiles, 1u) << what << ": the tile did not go to the device";
    }
  }
}

TEST(EncodeFedCuda, ADeviceFailureReadsTheRowsAgainOnTheCpu) {
  SKIP_WITHOUT_DEVICE();
  const Image image = test_image(700, 500, 3, 8, false, 92);
  for (const auto& [name, o] : fed_cases()) {
    const auto want = encode(image, o);
    ASSERT_TRUE(want.ok()) << name;
    auto device = make_device_tile_context();
    ASSERT_TRUE(device.ok()) << device.status().message();
    inject_device_tile_failures(**device, 1);
    const auto got = fed(image, o, device->get(), Rows::kStored, true);
    ASSERT_TRUE(got.ok()) << name << ": " << got.status().message();
    EXPECT_TRUE(want.value() == got->file) << name;
    EXPECT_EQ(got->rewinds, 1) << name;
    int moved = 0;
    for (const std::string& n : got->report.notes) moved += n.find("the device failed") != std::string::npos;
    EXPECT_EQ(moved, 1) << name;
  }
}

// Without a rewind (or with tiles, or sub-sampled components) the rows go
// the CPU's streamed way: the same file, the device given no tile.
TEST(EncodeFedCuda, ASourceThatCannotRewindOrATiledImageIsNotFed) {
  SKIP_WITHOUT_DEVICE();
  const Image image = test_image(600, 400, 3, 8, false, 93);
  EncodeOptions o;
  o.threads = 4;
  EncodeOptions tiled = o;
  tiled.tile_width = tiled.tile_height = 256;
  EXPECT_FALSE(streamed_encode_feeds_device(image, tiled));
  for (const auto& [opts, can_rewind] : {std::pair{o, false}, std::pair{tiled, true}}) {
    const auto want = encode(image, opts);
    ASSERT_TRUE(want.ok());
    auto device = make_device_tile_context();
    ASSERT_TRUE(device.ok()) << device.status().message();
    const auto got = fed(image, opts, device->get(), Rows::kByComponent, can_rewind);
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_TRUE(want.value() == got->file);
    EXPECT_EQ(device_tile_times(**device).tiles, 0u);
  }
}

}  // namespace
}  // namespace mallat::codec
