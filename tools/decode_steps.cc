#include "tools/decode_steps.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "codec/codec.h"
#include "io/file.h"
#include "io/image_io.h"

namespace mallat::tools {
namespace {

// Raw planes are the components as coded: decode applies no JP2 colour
// (palette, cdef, sYCC, ICC) for them (decode_steps), and says how to read
// them back.
bool is_raw(const std::filesystem::path& out) {
  const io::Format f = io::format_from_extension(out.string());
  return f == io::Format::kRaw || f == io::Format::kRawl;
}

}  // namespace

BatchSteps decode_steps(const DecodeOutputOptions& output, int reduce, std::span<const codec::DecodeOptions> lanes) {
  BatchSteps steps;
  steps.read = [](BatchItem& item) {
    auto data = io::read_file(item.file->in);
    if (!data.ok()) return data.status();
    item.bytes = std::move(*data);
    return Status::Ok();
  };
  steps.code = [lanes](BatchItem& item) {
    const std::string in = item.file->in.string();
    // Raw planes are the components as coded: no JP2 colour for them.
    codec::DecodeOptions options = lanes[static_cast<size_t>(item.lane)];
    if (is_raw(item.file->out)) options.apply_jp2_header = false;
    codec::DecodeReport report;
    // PNM output: the samples as its raster where the image allows
    // (codec/api/decode.h), written as they are (write_raster_output).
    const bool pnm = io::format_from_extension(item.file->out) == io::Format::kPnm;
    auto image = codec::decode(item.bytes, options, &report, pnm ? &item.raster : nullptr);
    for (const auto& w : report.warnings) item.messages.push_back("mallat decode: warning: " + in + ": " + w);
    if (!image.ok()) return image.status().with_context(in);
    item.bytes = {};
    item.image = std::move(*image);
    item.pixels = static_cast<uint64_t>(item.image.width()) * static_cast<uint64_t>(item.image.height());
    return Status::Ok();
  };
  steps.write = [output, reduce](BatchItem& item) {
    const std::filesystem::path& out = item.file->out;
    std::vector<std::string> notes;
    const auto note = [&] {
      for (const auto& n : notes) item.messages.push_back("mallat decode: note: " + out.string() + ": " + n);
    };
    if (!item.raster.empty()) {
      Result<bool> written = write_raster_output(item.image, item.raster, reduce, out, output, &notes);
      if (!written.ok()) return written.status();
      if (*written) {
        item.raster = {};
        note();
        return Status::Ok();
      }
      unpack_raster(item.raster, item.image);
      item.raster = {};
    }
    Status status = prepare_output(item.image, reduce, out, output, &notes);
    if (!status.ok()) return status.with_context(item.file->in.string());
    note();
    MALLAT_RETURN_IF_ERROR(write_outputs(item.image, out, output));
    // The -F text that reads the planes back (mallat encode, opj_compress).
    if (is_raw(out)) item.messages.push_back(raw_read_back_message(item.image, out));
    return Status::Ok();
  };
  return steps;
}

}  // namespace mallat::tools
