#include "tools/decode_streamed.h"

#include <cstdio>
#include <future>
#include <string>
#include <vector>

#include "codec/api/decode_streamed.h"
#include "io/file.h"
#include "io/mapped_file.h"
#include "io/strip_writer.h"
#include "tools/output_policy.h"

namespace mallat::tools {
namespace {

// The codec's strips through the output policy into the writer. A header
// that needs the whole image (an ICC profile to apply, components to
// upsample) stops the decode before any row.
class StripsToFile final : public codec::RowSink {
 public:
  StripsToFile(io::StripWriter& writer, const BatchFile& file, const io::MappedFile& input, int reduce,
               const DecodeOutputOptions& output)
      : writer_(writer), file_(file), input_(input), reduce_(reduce), output_(output) {}

  Status begin(const Image& header) override {
    const io::Format format = io::format_from_extension(file_.out);
    if (!header.icc_profile.empty() || needs_upsampling(header, format)) return cancelled();
    written = header;
    MALLAT_RETURN_IF_ERROR(prepare_output(written, reduce_, file_.out, output_, &notes));
    input_.release();  // the packet headers, read by Tier-2
    return writer_.begin(written);
  }

  // The strip's output conversion and writing run on a thread of their own
  // while the codec decodes the next strip; one strip at a time.
  Status rows(Image strip, int64_t) override {
    MALLAT_RETURN_IF_ERROR(finish());
    writing_ = std::async(std::launch::async, [this, prepared = std::move(strip)]() mutable {
      MALLAT_RETURN_IF_ERROR(prepare_output(prepared, reduce_, file_.out, output_, nullptr));
      // The compressed bytes touched so far leave the process; those the
      // next strips need come back from the page cache.
      input_.release();
      return writer_.rows(prepared);
    });
    return Status::Ok();
  }

  // Waits for the strip being written; its error, if any.
  Status finish() { return writing_.valid() ? writing_.get() : Status::Ok(); }

  static Status cancelled() { return unsupported("the whole image is needed"); }

  std::vector<std::string> notes;
  Image written;  // the header as written (prepare_output's), without samples

 private:
  std::future<Status> writing_;
  io::StripWriter& writer_;
  const BatchFile& file_;
  const io::MappedFile& input_;
  int reduce_;
  const DecodeOutputOptions& output_;
};

}  // namespace

std::optional<int> decode_one_streamed(const BatchFile& file, const codec::DecodeOptions& options,
                                       const DecodeOutputOptions& output, bool quiet) {
  const io::Format format = io::format_from_extension(file.out);
  // One file in a format written in strips; the options that act on the
  // whole image keep the whole-image path.
  if (output.whole_image || !io::writes_strips(format) || output.split_pnm || output.upsample) return std::nullopt;
  // Mapped, not read: the file is not held whole either.
  auto data = io::map_file(file.in);
  if (!data.ok()) return std::nullopt;  // run_one reads it and says why
  const std::string in = file.in.string();
  // Raw planes are the components as coded: no JP2 colour for them (as decode_steps).
  const bool raw = format == io::Format::kRaw || format == io::Format::kRawl;
  codec::DecodeOptions coded = options;
  if (raw) coded.apply_jp2_header = false;
  codec::DecodeReport report;
  std::vector<std::string> notes;
  Image written;
  const Status status = io::write_strips(file.out, {.format = format, .threads = options.threads},
                                         [&](io::StripWriter& writer) -> Status {
    StripsToFile sink(writer, file, *data, options.reduce, output);
    Result<bool> done = codec::decode_streamed(data->bytes(), coded, sink, &report);
    const Status finished = sink.finish();
    notes = sink.notes;
    written = std::move(sink.written);
    if (!done.ok()) return done.status();
    MALLAT_RETURN_IF_ERROR(finished);
    return *done ? Status::Ok() : StripsToFile::cancelled();
  });
  // Not taken, or failed: no file was left. The whole-image path decodes it
  // and gives its own warnings and errors, the same as ever (an error found
  // here is found there too, at the cost of a second attempt).
  if (!status.ok()) return std::nullopt;
  if (!quiet) {
    for (const auto& w : report.warnings) std::fprintf(stderr, "mallat decode: warning: %s: %s\n", in.c_str(), w.c_str());
    for (const auto& n : notes)
      std::fprintf(stderr, "mallat decode: note: %s: %s\n", file.out.string().c_str(), n.c_str());
    if (raw) std::fprintf(stderr, "%s\n", raw_read_back_message(written, file.out).c_str());
  }
  return 0;
}

}  // namespace mallat::tools
