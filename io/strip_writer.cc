#include "io/strip_writer.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "io/formats.h"

namespace mallat::io {
namespace {

// What every strip writer shares: the file's name for messages, where its
// bytes go, and the count of rows written.
class Strips : public StripWriter {
 public:
  Strips(std::string name, const char* format, const ByteSink& sink)
      : name_(std::move(name)), format_(format), sink_(sink) {}

  // Every row was written; then what follows the raster.
  virtual Status finish() {
    if (done_ != height_)
      return internal_error(name_ + ": " + std::to_string(done_) + " of " + std::to_string(height_) +
                            " rows written");
    return Status::Ok();
  }

 protected:
  Status named(const Status& s) const { return s.ok() ? s : s.with_context(name_ + " (" + format_ + ")"); }
  // check_interleavable's checks of the header (components, sizes,
  // precision), on one row of it: it has no samples.
  Status check_header(const Image& header, std::initializer_list<int> counts) {
    Image row = header;
    for (Component& c : row.components) {
      c.height = std::min<int64_t>(c.height, 1);
      c.samples.assign(static_cast<size_t>(std::max<int64_t>(0, c.width * c.height)), 0);
    }
    height_ = header.height();
    return named(detail::check_interleavable(row, format_, counts, 16, /*check_values=*/false));
  }
  Status put(std::span<const uint8_t> bytes) const { return sink_(bytes); }

  std::string name_;
  const char* format_;
  const ByteSink& sink_;
  int64_t height_ = 0, done_ = 0;
};

// P5/P6 (pnm.cc): encode_pnm's header, then write_binary_raster per strip.
class PnmStrips final : public Strips {
 public:
  PnmStrips(std::string name, const ByteSink& sink, ThreadPool& pool)
      : Strips(std::move(name), "PNM (P5/P6)", sink), pool_(pool) {}

  Status begin(const Image& header) override {
    MALLAT_RETURN_IF_ERROR(check_header(header, {1, 3}));
    const std::string text = detail::pnm_header(header);
    return put({reinterpret_cast<const uint8_t*>(text.data()), text.size()});
  }
  Status rows(const Image& strip) override {
    MALLAT_RETURN_IF_ERROR(detail::write_binary_raster(
        strip, sink_, pool_, [&] { return named(detail::check_interleavable(strip, format_, {1, 3}, 16)); }));
    done_ += strip.height();
    return Status::Ok();
  }

 private:
  ThreadPool& pool_;
};

// TIFF (tiff_write.cc): encode_tiff's header, its raster's rows strip by
// strip, then its IFD; classic or BigTIFF as encode_tiff decides.
class TiffStrips final : public Strips {
 public:
  TiffStrips(std::string name, const ByteSink& sink) : Strips(std::move(name), "TIFF", sink) {}

  Status begin(const Image& header) override {
    MALLAT_RETURN_IF_ERROR(check_header(header, {1, 2, 3, 4}));
    Result<detail::TiffFrame> frame = detail::tiff_frame(header);
    if (!frame.ok()) return named(frame.status());
    frame_ = std::move(*frame);
    return put(frame_.head);
  }
  Status rows(const Image& strip) override {
    MALLAT_RETURN_IF_ERROR(named(detail::check_interleavable(strip, format_, {1, 2, 3, 4}, 16)));
    raster_.resize(static_cast<size_t>(frame_.row_bytes * static_cast<uint64_t>(strip.height())));
    detail::tiff_rows(strip, 0, strip.height(), frame_, raster_.data());
    MALLAT_RETURN_IF_ERROR(put(raster_));
    done_ += strip.height();
    return Status::Ok();
  }
  Status finish() override {
    MALLAT_RETURN_IF_ERROR(Strips::finish());
    return put(frame_.tail);
  }

 private:
  detail::TiffFrame frame_;
  std::vector<uint8_t> raster_;
};

// PNG (png.cc): encode_png's PngRowWriter, rows as they come (never
// interlaced: Adam7 needs every row in each pass).
class PngStrips final : public Strips {
 public:
  PngStrips(std::string name, const ByteSink& sink) : Strips(std::move(name), "PNG", sink) {}

  Status begin(const Image& header) override {
    MALLAT_RETURN_IF_ERROR(check_header(header, {1, 2, 3, 4}));
    Result<std::unique_ptr<detail::PngRowWriter>> writer = detail::PngRowWriter::start(header, false, sink_);
    if (!writer.ok()) return named(writer.status());
    writer_ = std::move(*writer);
    return Status::Ok();
  }
  Status rows(const Image& strip) override {
    MALLAT_RETURN_IF_ERROR(named(detail::check_interleavable(strip, format_, {1, 2, 3, 4}, 16)));
    MALLAT_RETURN_IF_ERROR(named(writer_->rows(strip, 0, strip.height())));
    done_ += strip.height();
    return Status::Ok();
  }
  Status finish() override {
    MALLAT_RETURN_IF_ERROR(Strips::finish());
    return named(writer_->finish());
  }

 private:
  std::unique_ptr<detail::PngRowWriter> writer_;
};

}  // namespace

bool writes_strips(Format format) {
  return format == Format::kPnm || format == Format::kTiff || format == Format::kPng;
}

Status write_strips(const std::filesystem::path& path, const WriteOptions& options,
                    const std::function<Status(StripWriter&)>& produce) {
  const Format format = options.format != Format::kUnknown ? options.format : format_from_extension(path);
  if (!writes_strips(format))
    return unsupported(path.string() + ": " + format_name(format) + " is not written strip by strip");
  ThreadPool pool(options.threads);
  return write_file_atomically(path, [&](const ByteSink& sink) {
    std::unique_ptr<Strips> writer;
    if (format == Format::kTiff) writer = std::make_unique<TiffStrips>(path.string(), sink);
    else if (format == Format::kPng) writer = std::make_unique<PngStrips>(path.string(), sink);
    else writer = std::make_unique<PnmStrips>(path.string(), sink, pool);
    MALLAT_RETURN_IF_ERROR(produce(*writer));
    return writer->finish();
  });
}

}  // namespace mallat::io
