#include "tools/encode_streamed.h"

#include <mutex>
#include <string>
#include <utility>

#include "io/file.h"

namespace mallat::tools {

Status write_streamed_encode(const BatchFile& file, io::StripReader& reader, const StreamedEncode& encode,
                             const ReopenStrips& reopen) {
  const std::string in = file.in.string();
  // The reader's and the output's errors name their files already; the
  // encoder's get the input's name, as the whole-image encode gives it.
  // (The conversions of rows read together run on the encoder's threads.)
  Status own_error;
  std::mutex own_error_mutex;
  auto own = [&](Status s) {
    if (!s.ok()) {
      const std::lock_guard<std::mutex> lock(own_error_mutex);
      if (own_error.ok()) own_error = s;
    }
    return s;
  };
  // A reader's row conversion whose errors are kept as the reader's own.
  auto owned = [&own](auto convert) {
    return [&own, convert = std::move(convert)](int64_t y0, int64_t y1, auto* const* out) {
      return own(convert(y0, y1, out));
    };
  };
  // The reader the rows come from: `reader`, or the one a rewind opened.
  io::StripReader* current = &reader;
  std::unique_ptr<io::StripReader> reopened;
  codec::RowSource source;
  source.layout = reader.layout();
  source.read_rows = [&](int c, int64_t rows, int32_t* out) { return own(current->read_rows(c, rows, out)); };
  if (reader.reads_together()) {
    source.read_together = [&](int64_t rows) -> Result<codec::RowConversion> {
      Result<io::StripReader::Conversion> convert = current->read_together(rows);
      if (!convert.ok()) return own(convert.status());
      return codec::RowConversion(owned(std::move(*convert)));
    };
  }
  if (reopen) {
    source.rewind = [&]() -> Status {
      Result<std::unique_ptr<io::StripReader>> again = reopen();
      if (!again.ok()) return own(again.status());
      if (!*again) return own(io_error(in + ": cannot be read in strips again"));
      reopened = std::move(*again);
      current = reopened.get();
      return Status::Ok();
    };
  }
  if (reader.reads_stored()) {
    source.read_together_stored = [&](int64_t rows) -> Result<codec::StoredRowConversion> {
      Result<io::StripReader::StoredConversion> convert = current->read_together_stored(rows);
      if (!convert.ok()) return own(convert.status());
      return codec::StoredRowConversion(owned(std::move(*convert)));
    };
  }
  const Status status = io::write_file_atomically(file.out, [&](const io::ByteSink& sink, const io::SizeHint& reserve) {
    const codec::FileSink out = [&](std::span<const uint8_t> piece) {
      Status s = sink(piece);
      if (!s.ok() && own_error.ok()) own_error = s;
      return s;
    };
    const codec::FileSizeHint size = [&](uint64_t bytes) { reserve(bytes); };
    return encode(source, out, &size);
  });
  if (status.ok()) return status;
  return own_error.ok() ? status.with_context(in) : own_error;
}

BatchSteps encode_streamed_steps(Engine& engine, const codec::EncodeOptions& opt,
                                 std::shared_ptr<io::StripReader> reader, ReopenStrips reopen) {
  BatchSteps steps;
  steps.read = [](BatchItem&) { return Status::Ok(); };
  steps.code = [](BatchItem&) { return Status::Ok(); };
  steps.write = [&engine, &opt, reader = std::move(reader), reopen = std::move(reopen)](BatchItem& item) {
    codec::EncodeReport report;
    const Status status = write_streamed_encode(*item.file, *reader, [&](const codec::RowSource& source,
                                                                        const codec::FileSink& sink,
                                                                        const codec::FileSizeHint* size_hint) {
      return engine.encode_streamed(source, opt, sink, &report, size_hint);
    }, reopen);
    for (const auto& n : report.notes) item.messages.push_back("mallat encode: note: " + item.file->in.string() + ": " + n);
    return status;
  };
  return steps;
}

}  // namespace mallat::tools
