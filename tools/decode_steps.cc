#include "tools/decode_steps.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "io/file.h"
#include "io/image_io.h"

namespace mallat::tools {

bool writes_raw_planes(const std::filesystem::path& out) {
  const io::Format f = io::format_from_extension(out.string());
  return f == io::Format::kRaw || f == io::Format::kRawl;
}

bool writes_pnm(const std::filesystem::path& out) { return io::format_from_extension(out) == io::Format::kPnm; }

Status write_decoded(const DecodeOutputOptions& output, int reduce, BatchItem& item) {
  const std::filesystem::path& out = item.file->out;
  std::vector<std::string> notes;
  const auto note = [&] {
    for (const auto& n : notes) item.messages.push_back("mallat decode: note: " + out.string() + ": " + n);
  };
  if (!item.raster.empty()) {
    Result<bool> written = write_raster_output(item.image, item.raster, reduce, out, output, &notes);
    if (!written.ok()) return written.status();
    if (*written) {
      note();
      return Status::Ok();
    }
    unpack_raster(item.raster, item.image);
    item.raster = std::vector<uint8_t>();
  }
  Status status = prepare_output(item.image, reduce, out, output, &notes);
  if (!status.ok()) return status.with_context(item.file->in.string());
  note();
  MALLAT_RETURN_IF_ERROR(write_outputs(item.image, out, output));
  // The -F text that reads the planes back (mallat encode, opj_compress).
  if (writes_raw_planes(out)) item.messages.push_back(raw_read_back_message(item.image, out));
  return Status::Ok();
}

BatchSteps decode_steps(const DecodeOutputOptions& output, int reduce, Engine& engine,
                        const codec::DecodeOptions& options) {
  BatchSteps steps;
  steps.read = [](BatchItem& item) {
    auto data = io::read_file(item.file->in);
    if (!data.ok()) return data.status();
    item.bytes = std::move(*data);
    return Status::Ok();
  };
  steps.code = [&engine, &options](BatchItem& item) {
    const std::string in = item.file->in.string();
    codec::DecodeOptions own = options;
    if (writes_raw_planes(item.file->out)) own.apply_jp2_header = false;
    codec::DecodeReport report;
    auto image = engine.decode(item.bytes, own, &report, writes_pnm(item.file->out) ? &item.raster : nullptr);
    for (const auto& w : report.warnings) item.messages.push_back("mallat decode: warning: " + in + ": " + w);
    if (!image.ok()) return image.status().with_context(in);
    item.bytes = std::vector<uint8_t>();
    item.image = std::move(*image);
    item.pixels = static_cast<uint64_t>(item.image.width()) * static_cast<uint64_t>(item.image.height());
    return Status::Ok();
  };
  steps.write = [output, reduce](BatchItem& item) {
    const Status written = write_decoded(output, reduce, item);
    item.raster = std::vector<uint8_t>();
    return written;
  };
  return steps;
}

}  // namespace mallat::tools
