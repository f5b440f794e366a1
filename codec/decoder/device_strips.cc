// decode_from_device_raster (decode_call.h): the image decoded as decode()
// decodes it, its raster left in device memory by the device runner's tiles
// (codec/stages/device_raster.h), then handed to the sink strip by strip,
// each strip copied down on its turn. The host holds the codestream and a
// strip; the image's samples never are in host memory.
#include <algorithm>
#include <utility>
#include <vector>

#include "codec/decoder/decode_call.h"
#include "codec/stages/device_raster.h"

namespace mallat::codec {
namespace {

// The strip's bytes as a strip image of int32 samples (RowSink::rows), for
// a sink that takes no byte rows: raster[(y * width + x) * n + c]. Its
// sample vectors are the sink's spent ones where it gave some back (a sink
// keeps them until asked).
Image strip_of(const Image& described, const std::vector<uint8_t>& raster, int64_t rows,
               std::vector<std::vector<int32_t>>& spare) {
  Image strip = described;
  const int n = described.num_components();
  const int64_t width = described.width();
  for (int c = 0; c < n; ++c) {
    Component& comp = strip.components[static_cast<size_t>(c)];
    comp.height = rows;
    if (!spare.empty()) {
      comp.samples = std::move(spare.back());
      spare.pop_back();
    }
    comp.samples.resize(static_cast<size_t>(width * rows));
    for (int64_t i = 0; i < width * rows; ++i) comp.samples[static_cast<size_t>(i)] = raster[static_cast<size_t>(i * n + c)];
  }
  return strip;
}

}  // namespace

Result<bool> decode_from_device_raster(std::span<const uint8_t> data, const DecodeOptions& options,
                                       CallResources resources, RowSink& sink, DecodeReport* report,
                                       int64_t strip_bytes) {
  if (!resources.device_tiles || !device_raster_ready().ok()) return false;
  std::shared_ptr<uint8_t> device;
  resources.device_raster = &device;
  std::vector<uint8_t> host_raster;
  MALLAT_ASSIGN_OR_RETURN(Image image, decode(data, options, resources, report, &host_raster));
  // The image as begin() takes it, its components' samples left out (and
  // kept, where the decode gave them, for the one strip below).
  std::vector<std::vector<int32_t>> samples;
  for (Component& c : image.components) samples.push_back(std::move(c.samples));
  const Image described = image;
  for (size_t c = 0; c < samples.size(); ++c) image.components[c].samples = std::move(samples[c]);
  MALLAT_RETURN_IF_ERROR(sink.begin(described));
  if (!device) {
    // No raster: the image does not fit bytes (decode.h), so its samples are
    // in the image, handed over as one strip.
    MALLAT_RETURN_IF_ERROR(sink.rows(std::move(image), 0));
    return true;
  }
  const int64_t height = described.height();
  const int64_t row_bytes = described.width() * described.num_components();
  const int64_t rows_each = std::max<int64_t>(1, strip_bytes / std::max<int64_t>(row_bytes, 1));
  const bool bytes = sink.takes_bytes();
  std::vector<std::vector<uint8_t>> spare;
  std::vector<std::vector<int32_t>> spare_samples;
  std::vector<uint8_t> staged;  // a strip's bytes for strip_of
  for (int64_t y0 = 0; y0 < height; y0 += rows_each) {
    const int64_t rows = std::min(rows_each, height - y0);
    std::vector<uint8_t> strip;
    if (bytes) {
      strip = reused_bytes(sink, spare);
    } else {
      for (std::vector<int32_t>& v : sink.spent_samples()) spare_samples.push_back(std::move(v));
      strip = std::move(staged);
    }
    strip.resize(static_cast<size_t>(rows * row_bytes));
    MALLAT_RETURN_IF_ERROR(download_device_raster(device.get() + y0 * row_bytes, strip.size(), strip.data()));
    if (bytes) {
      MALLAT_RETURN_IF_ERROR(sink.byte_rows(std::move(strip), rows, y0));
    } else {
      MALLAT_RETURN_IF_ERROR(sink.rows(strip_of(described, strip, rows, spare_samples), y0));
      staged = std::move(strip);
    }
  }
  return true;
}

}  // namespace mallat::codec
