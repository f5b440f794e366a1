#include "tools/encode_streamed.h"

#include <string>
#include <utility>

#include "io/file.h"

namespace mallat::tools {

BatchSteps encode_streamed_steps(Engine& engine, const codec::EncodeOptions& opt,
                                 std::shared_ptr<io::StripReader> reader) {
  BatchSteps steps;
  steps.read = [](BatchItem&) { return Status::Ok(); };
  steps.code = [](BatchItem&) { return Status::Ok(); };
  steps.write = [&engine, &opt, reader = std::move(reader)](BatchItem& item) {
    const std::string in = item.file->in.string();
    // The reader's and the output's errors name their files already; the
    // encoder's get the input's name, as the whole-image encode gives it.
    Status own_error;
    codec::RowSource source;
    source.layout = reader->layout();
    source.read_rows = [&](int c, int64_t rows, int32_t* out) {
      Status s = reader->read_rows(c, rows, out);
      if (!s.ok() && own_error.ok()) own_error = s;
      return s;
    };
    codec::EncodeReport report;
    const Status status = io::write_file_atomically(item.file->out, [&](const io::ByteSink& sink) {
      const codec::FileSink out = [&](std::span<const uint8_t> piece) {
        Status s = sink(piece);
        if (!s.ok() && own_error.ok()) own_error = s;
        return s;
      };
      return engine.encode_streamed(source, opt, out, &report);
    });
    for (const auto& n : report.notes) item.messages.push_back("mallat encode: note: " + in + ": " + n);
    if (status.ok()) return status;
    return own_error.ok() ? status.with_context(in) : own_error;
  };
  return steps;
}

}  // namespace mallat::tools
