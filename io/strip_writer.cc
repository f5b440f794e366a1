#include "io/strip_writer.h"

#include <algorithm>
#include <string>

#include "io/formats.h"

namespace mallat::io {
namespace {

constexpr const char* kPnm = "PNM (P5/P6)";

// P5/P6 (pnm.cc): encode_pnm's header, then write_binary_raster per strip.
class PnmStrips final : public StripWriter {
 public:
  PnmStrips(std::string name, const ByteSink& sink, ThreadPool& pool)
      : name_(std::move(name)), sink_(sink), pool_(pool) {}

  Status begin(const Image& header) override {
    // The header's checks (components, sizes, precision) on one row of it.
    Image row = header;
    for (Component& c : row.components) {
      c.height = std::min<int64_t>(c.height, 1);
      c.samples.assign(static_cast<size_t>(std::max<int64_t>(0, c.width * c.height)), 0);
    }
    MALLAT_RETURN_IF_ERROR(named(detail::check_interleavable(row, kPnm, {1, 3}, 16, /*check_values=*/false)));
    height_ = header.height();
    const std::string text = detail::pnm_header(header);
    return sink_({reinterpret_cast<const uint8_t*>(text.data()), text.size()});
  }

  Status rows(const Image& strip) override {
    MALLAT_RETURN_IF_ERROR(detail::write_binary_raster(
        strip, sink_, pool_, [&] { return named(detail::check_interleavable(strip, kPnm, {1, 3}, 16)); }));
    done_ += strip.height();
    return Status::Ok();
  }

  Status finish() const {
    if (done_ != height_)
      return internal_error(name_ + ": " + std::to_string(done_) + " of " + std::to_string(height_) +
                            " rows written");
    return Status::Ok();
  }

 private:
  Status named(const Status& s) const { return s.ok() ? s : s.with_context(name_ + " (" + kPnm + ")"); }

  std::string name_;
  const ByteSink& sink_;
  ThreadPool& pool_;
  int64_t height_ = 0, done_ = 0;
};

}  // namespace

bool writes_strips(Format format) { return format == Format::kPnm; }

Status write_strips(const std::filesystem::path& path, const WriteOptions& options,
                    const std::function<Status(StripWriter&)>& produce) {
  const Format format = options.format != Format::kUnknown ? options.format : format_from_extension(path);
  if (!writes_strips(format))
    return unsupported(path.string() + ": " + format_name(format) + " is not written strip by strip");
  ThreadPool pool(options.threads);
  return write_file_atomically(path, [&](const ByteSink& sink) {
    PnmStrips writer(path.string(), sink, pool);
    MALLAT_RETURN_IF_ERROR(produce(writer));
    return writer.finish();
  });
}

}  // namespace mallat::io
