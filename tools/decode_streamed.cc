#include "tools/decode_streamed.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "codec/api/decode_streamed.h"
#include "codec/codestream/codestream_reader.h"
#include "codec/jp2/jp2_boxes.h"
#include "common/job_thread.h"
#include "common/thread_pool.h"
#include "common/timeline.h"
#include "io/file.h"
#include "io/mapped_file.h"
#include "io/strip_writer.h"
#include "tools/decode_steps.h"
#include "tools/output_policy.h"

namespace mallat::tools {
namespace {

// The codec's strips through the output policy into the writer. A header
// that needs the whole image (an ICC profile to apply, components to
// upsample) stops the decode before any row.
class StripsToFile final : public codec::RowSink {
 public:
  StripsToFile(io::StripWriter& writer, const BatchFile& file, const io::MappedFile* input, int reduce,
               const DecodeOutputOptions& output)
      : writer_(writer), file_(file), input_(input), reduce_(reduce), output_(output) {}

  Status begin(const Image& header) override {
    const io::Format format = io::format_from_extension(file_.out);
    if (!header.icc_profile.empty() || needs_upsampling(header, format)) return cancelled();
    written = header;
    MALLAT_RETURN_IF_ERROR(prepare_output(written, reduce_, file_.out, output_, &notes));
    release_input();  // the packet headers, read by Tier-2
    MALLAT_RETURN_IF_ERROR(writer_.begin(written));
    // Bytes straight into the raster where the output policy leaves the
    // samples as decoded: it changes them only where it changes their
    // description (count, precision, signedness; -p at the same precision
    // clamps to the range they are in already).
    takes_bytes_ = output_keeps_samples(header, written) && writer_.takes_raster();
    return Status::Ok();
  }

  bool takes_bytes() override { return takes_bytes_; }

  // As rows(): the raster written on the thread of its own.
  Status byte_rows(std::vector<uint8_t> raster, int64_t rows, int64_t) override {
    MALLAT_RETURN_IF_ERROR(finish());
    auto held = std::make_shared<std::vector<uint8_t>>(std::move(raster));
    writer_thread_.start([this, held, rows, tag = timeline::current_tag()]() -> Status {
      release_input();
      timeline::set_tag(tag);  // the file's and lane's, as the decode's
      const timeline::Span span("strip_write");  // with MALLAT_TIMELINE
      MALLAT_RETURN_IF_ERROR(writer_.raster_rows(*held, rows));
      const std::lock_guard<std::mutex> lock(spent_mutex_);
      spent_bytes_.push_back(std::move(*held));
      return Status::Ok();
    });
    return Status::Ok();
  }

  std::vector<std::vector<uint8_t>> spent_bytes() override {
    const std::lock_guard<std::mutex> lock(spent_mutex_);
    return std::exchange(spent_bytes_, {});
  }

  // The strip's output conversion and writing run on a thread of their own
  // while the codec decodes the next strip; one strip at a time.
  Status rows(Image strip, int64_t) override {
    MALLAT_RETURN_IF_ERROR(finish());
    // std::function needs a copyable callable: the strip is held by pointer.
    auto held = std::make_shared<Image>(std::move(strip));
    writer_thread_.start([this, held]() -> Status {
      Image& prepared = *held;
      MALLAT_RETURN_IF_ERROR(prepare_output(prepared, reduce_, file_.out, output_, nullptr));
      // The compressed bytes touched so far leave the process; those the
      // next strips need come back from the page cache.
      release_input();
      MALLAT_RETURN_IF_ERROR(writer_.rows(prepared));
      const std::lock_guard<std::mutex> lock(spent_mutex_);
      for (Component& c : prepared.components) spent_.push_back(std::move(c.samples));
      return Status::Ok();
    });
    return Status::Ok();
  }

  std::vector<std::vector<int32_t>> spent_samples() override {
    const std::lock_guard<std::mutex> lock(spent_mutex_);
    return std::exchange(spent_, {});
  }

  // Waits for the strip being written; its error, if any.
  Status finish() {
    const timeline::Span span("strip_write_wait");  // with MALLAT_TIMELINE
    return writer_thread_.wait();
  }

  static Status cancelled() { return unsupported("the whole image is needed"); }

  std::vector<std::string> notes;
  Image written;  // the header as written (prepare_output's), without samples

 private:
  void release_input() const {
    if (input_) input_->release();
  }

  std::mutex spent_mutex_;
  std::vector<std::vector<int32_t>> spent_;  // the written strips' samples
  std::vector<std::vector<uint8_t>> spent_bytes_;  // and rasters
  bool takes_bytes_ = false;
  io::StripWriter& writer_;
  const BatchFile& file_;
  const io::MappedFile* input_;  // a mapped input, or null
  int reduce_;
  const DecodeOutputOptions& output_;
  JobThread writer_thread_;  // last: it stops, after its job, before the members the job uses go
};

// The main header's facts behind the default path: the samples the decode
// gives (every component, at -r) and whether any component uses the 9/7;
// nullopt when the header cannot be read (the decode then says why).
struct StreamShape {
  uint64_t samples = 0;
  bool irreversible = false;
};

std::optional<StreamShape> stream_shape(std::span<const uint8_t> file, int reduce) {
  const Result<std::span<const uint8_t>> stream = codec::find_codestream(file);
  if (!stream.ok()) return std::nullopt;
  const Result<codec::MainHeader> main = codec::parse_main_header(*stream);
  if (!main.ok()) return std::nullopt;
  const codec::ImageAndTileSize& siz = main->siz;
  StreamShape shape;
  const int shift = std::clamp(reduce, 0, 31);
  for (const auto& c : siz.components) {
    const uint64_t w = (uint64_t{siz.xsiz} - siz.xosiz + static_cast<uint64_t>(c.dx) - 1) / static_cast<uint64_t>(std::max(c.dx, 1));
    const uint64_t h = (uint64_t{siz.ysiz} - siz.yosiz + static_cast<uint64_t>(c.dy) - 1) / static_cast<uint64_t>(std::max(c.dy, 1));
    shape.samples += (w >> shift) * (h >> shift);
  }
  // A tile's COD or COC may differ; the main header's say what most of the
  // image uses, and either path gives the same bytes.
  shape.irreversible = !main->cod.component.reversible;
  for (const auto& [component, coding] : main->coc) shape.irreversible |= !coding.reversible;
  return shape;
}

}  // namespace

// Which path one file takes when neither --streamed nor --whole-image is
// given: the streamed path holds no whole-image planes and writes strips as
// they come, so it wins wherever its inverse DWT keeps up; that DWT runs on
// one thread (dwt/line_inverse.h), which is enough for a 5/3 stream, whose
// Tier-1 dominates, but not for a 9/7 stream on more than two threads, where
// the whole image's parallel inverse DWT is the faster. From 64 M samples
// the streamed path is taken for its memory at any thread count.
// bench/decode_threads.sh measures both paths per thread count
// (docs/PERFORMANCE.md).
bool streamed_by_default(uint64_t decoded_samples, bool irreversible, int threads) {
  constexpr uint64_t kStreamFromSamples = uint64_t{1} << 26;
  constexpr int kIrreversibleStreamsUpTo = 2;  // threads
  if (decoded_samples >= kStreamFromSamples) return true;
  const int resolved = threads > 0 ? threads : ThreadPool::hardware_threads();
  return !irreversible || resolved <= kIrreversibleStreamsUpTo;
}

bool streams(const BatchFile& file, std::span<const uint8_t> data, const codec::DecodeOptions& options,
             const DecodeOutputOptions& output, int threads) {
  const io::Format format = io::format_from_extension(file.out);
  // A format written in strips; the options that act on the whole image
  // keep the whole-image path.
  if (output.whole_image || !io::writes_strips(format) || output.split_pnm || output.upsample) return false;
  if (output.streamed) return true;
  const std::optional<StreamShape> shape = stream_shape(data, options.reduce);
  // A header that cannot be read: the whole-image path says why, or at one
  // thread the streamed one.
  return shape ? streamed_by_default(shape->samples, shape->irreversible, threads) : threads == 1;
}

std::optional<StreamedDecodeInput> streamed_decode_input(const BatchFile& file, const codec::DecodeOptions& options,
                                                         const DecodeOutputOptions& output) {
  if (output.whole_image || !io::writes_strips(io::format_from_extension(file.out))) return std::nullopt;
  auto data = io::map_file(file.in);
  if (!data.ok()) return std::nullopt;  // run_one reads it and says why
  if (!streams(file, data->bytes(), options, output, options.threads)) return std::nullopt;
  const std::optional<StreamShape> shape = stream_shape(data->bytes(), options.reduce);
  return StreamedDecodeInput{std::move(*data), shape ? shape->samples : 0};
}

std::optional<Image> write_streamed(const BatchFile& file, const codec::DecodeOptions& options,
                                   const DecodeOutputOptions& output, const io::MappedFile* mapped,
                                   const StreamedDecode& decode, std::vector<std::string>* messages) {
  const io::Format format = io::format_from_extension(file.out);
  std::vector<std::string> notes;
  Image written;
  const Status status = io::write_strips(file.out, {.format = format, .png = output.png, .threads = output.threads},
                                         [&](io::StripWriter& writer) -> Status {
    StripsToFile sink(writer, file, mapped, options.reduce, output);
    Result<bool> done = decode(sink);
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
  for (const auto& n : notes) messages->push_back("mallat decode: note: " + file.out.string() + ": " + n);
  if (format == io::Format::kRaw || format == io::Format::kRawl)
    messages->push_back(raw_read_back_message(written, file.out));
  return written;
}

std::optional<int> decode_one_streamed(const StreamedDecodeInput& input, Engine& engine, const BatchFile& file,
                                       const codec::DecodeOptions& options, const DecodeOutputOptions& output,
                                       bool quiet) {
  // Raw planes are the components as coded: no JP2 colour for them (as decode_steps).
  codec::DecodeOptions coded = options;
  if (writes_raw_planes(file.out)) coded.apply_jp2_header = false;
  codec::DecodeReport report;
  std::vector<std::string> messages;
  std::optional<timeline::Span> whole(std::in_place, "streamed");  // with MALLAT_TIMELINE
  const std::optional<Image> written = write_streamed(file, options, output, &input.data, [&](codec::RowSink& sink) {
    return engine.decode_streamed(input.data.bytes(), coded, sink, &report);
  }, &messages);
  whole.reset();
  if (!written) return std::nullopt;
  // MALLAT_TIMELINE's spans (the device's launches, the waits for blocks).
  if (const std::string problem = timeline::write_recorded(); !problem.empty())
    std::fprintf(stderr, "mallat decode: %s\n", problem.c_str());
  if (!quiet) {
    for (const auto& w : report.warnings)
      std::fprintf(stderr, "mallat decode: warning: %s: %s\n", file.in.string().c_str(), w.c_str());
    for (const auto& m : messages) std::fprintf(stderr, "%s\n", m.c_str());
  }
  return 0;
}

}  // namespace mallat::tools
