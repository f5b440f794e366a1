#include "io/strip_writer.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <system_error>
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
  PnmStrips(std::string name, const ByteSink& sink, const SizeHint& reserve, PoolOnDemand& pool)
      : Strips(std::move(name), "PNM (P5/P6)", sink), reserve_(reserve), pool_(pool) {}

  Status begin(const Image& header) override {
    MALLAT_RETURN_IF_ERROR(check_header(header, {1, 3}));
    // write_binary_raster's 8-bit layout: one byte a sample, components in turn.
    raster_ok_ = std::all_of(header.components.begin(), header.components.end(),
                             [](const Component& c) { return !c.is_signed && c.precision >= 1 && c.precision <= 8; });
    row_bytes_ = header.width() * header.num_components();
    const std::string text = detail::pnm_header(header);
    // The file's size is known: the header, then a byte a sample (two past 8 bits).
    const int sample_bytes = header.components[0].precision <= 8 ? 1 : 2;
    reserve_(text.size() + static_cast<uint64_t>(row_bytes_ * sample_bytes * header.height()));
    return put({reinterpret_cast<const uint8_t*>(text.data()), text.size()});
  }
  bool takes_raster() const override { return raster_ok_; }
  Status raster_rows(std::span<const uint8_t> raster, int64_t rows) override {
    if (!raster_ok_ || raster.size() != static_cast<size_t>(row_bytes_ * rows))
      return internal_error(name_ + ": a raster of " + std::to_string(raster.size()) + " bytes for " +
                            std::to_string(rows) + " rows");
    MALLAT_RETURN_IF_ERROR(put(raster));
    done_ += rows;
    return Status::Ok();
  }
  Status rows(const Image& strip) override {
    MALLAT_RETURN_IF_ERROR(detail::write_binary_raster(
        strip, sink_, pool_.get(), [&] { return named(detail::check_interleavable(strip, format_, {1, 3}, 16)); }));
    done_ += strip.height();
    return Status::Ok();
  }

 private:
  const SizeHint& reserve_;
  PoolOnDemand& pool_;  // rows() alone converts samples on it
  bool raster_ok_ = false;
  int64_t row_bytes_ = 0;
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
  PngStrips(std::string name, const PngCompression& compression, const ByteSink& sink)
      : Strips(std::move(name), "PNG", sink), compression_(compression) {}

  Status begin(const Image& header) override {
    MALLAT_RETURN_IF_ERROR(check_header(header, {1, 2, 3, 4}));
    Result<std::unique_ptr<detail::PngRowWriter>> writer = detail::PngRowWriter::start(header, false, compression_, sink_);
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
  PngCompression compression_;
  std::unique_ptr<detail::PngRowWriter> writer_;
};

// One component's bytes set aside while the rows of all come in: a file
// beside the output (not in /tmp, which may be memory), unlinked at once so
// that it goes when closed, whatever happens.
class SpillFile {
 public:
  SpillFile() = default;
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;
  ~SpillFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  Status create(const std::filesystem::path& beside, int c) {
    fd_ = create_file_beside(beside, ".plane" + std::to_string(c) + ".tmp", &name_);
    if (fd_ < 0) return io_error(name_ + ": cannot create a temporary file: " + std::strerror(errno));
    ::unlink(name_.c_str());
    return Status::Ok();
  }
  Status append(std::span<const uint8_t> bytes) {
    for (size_t done = 0; done < bytes.size();) {
      const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return io_error(name_ + ": write failed: " + std::strerror(errno));
      done += static_cast<size_t>(n);
    }
    size_ += bytes.size();
    return Status::Ok();
  }
  // Everything appended, in order, to `sink`.
  Status copy_to(const ByteSink& sink) const {
    std::vector<uint8_t> chunk(std::min<uint64_t>(size_, uint64_t{1} << 20));
    for (uint64_t at = 0; at < size_;) {
      const ssize_t n = ::pread(fd_, chunk.data(), std::min<uint64_t>(chunk.size(), size_ - at), static_cast<off_t>(at));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return io_error(name_ + ": read failed: " + std::strerror(n < 0 ? errno : EIO));
      MALLAT_RETURN_IF_ERROR(sink({chunk.data(), static_cast<size_t>(n)}));
      at += static_cast<uint64_t>(n);
    }
    return Status::Ok();
  }

 private:
  int fd_ = -1;
  uint64_t size_ = 0;
  std::string name_;
};

// The planar formats, one component after another: raw planes (raw.cc;
// component 0 straight into the file, the others set aside and appended
// at the end) and PGX (pgx.cc; one file per component, each set aside and
// written with its header at the end, all or none).
class PlaneStrips final : public StripWriter {
 public:
  PlaneStrips(std::filesystem::path path, Format format)
      : path_(std::move(path)), format_(format), name_(path_.string() + " (" + format_name(format) + ")") {}

  // Raw planes: where component 0's bytes go.
  void set_first(const ByteSink* sink) { first_ = sink; }

  Status begin(const Image& header) override {
    header_ = header;
    if (header.components.empty()) return named(invalid_argument("the image has no components"));
    for (const Component& comp : header.components)
      if (comp.height != header.components[0].height)
        return named(invalid_argument("components of several heights are not written strip by strip"));
    if (format_ == Format::kPgx)
      for (const Component& comp : header.components) MALLAT_RETURN_IF_ERROR(named(detail::pgx_header(comp).status()));
    spills_.resize(header.components.size());
    for (size_t c = first_ ? 1 : 0; c < spills_.size(); ++c) {
      spills_[c] = std::make_unique<SpillFile>();
      MALLAT_RETURN_IF_ERROR(spills_[c]->create(path_, static_cast<int>(c)));
    }
    return Status::Ok();
  }

  Status rows(const Image& strip) override {
    if (format_ != Format::kPgx) MALLAT_RETURN_IF_ERROR(named(detail::check_raw_planes(strip)));
    for (int c = 0; c < strip.num_components(); ++c) {
      const Component& comp = strip.components[c];
      const size_t count = comp.samples.size();
      bytes_.resize(count * sample_bytes(comp));
      const Status converted =
          format_ == Format::kPgx
              ? detail::pgx_sample_bytes(comp, comp.samples.data(), count, bytes_.data())
              : detail::raw_sample_bytes(comp, c, comp.samples.data(), count,
                                         static_cast<size_t>(done_ * comp.width), format_ == Format::kRaw,
                                         bytes_.data());
      MALLAT_RETURN_IF_ERROR(named(converted));
      MALLAT_RETURN_IF_ERROR(spills_[c] ? spills_[c]->append(bytes_) : (*first_)(bytes_));
    }
    done_ += strip.height();
    return Status::Ok();
  }

  // Raw planes: components 1.. after component 0.
  Status finish_raw(const ByteSink& sink) {
    MALLAT_RETURN_IF_ERROR(all_rows());
    for (size_t c = 1; c < spills_.size(); ++c) MALLAT_RETURN_IF_ERROR(spills_[c]->copy_to(sink));
    return Status::Ok();
  }

  // PGX: each component's file; on an error those written are removed.
  Status finish_pgx() {
    MALLAT_RETURN_IF_ERROR(all_rows());
    std::vector<std::filesystem::path> written;
    for (int c = 0; c < header_.num_components(); ++c) {
      const std::filesystem::path out =
          header_.num_components() == 1 ? path_ : component_path(path_, c, ".pgx");
      const Status s = write_file_atomically(out, [&](const ByteSink& sink) {
        const std::string text = *detail::pgx_header(header_.components[c]);
        MALLAT_RETURN_IF_ERROR(sink({reinterpret_cast<const uint8_t*>(text.data()), text.size()}));
        return spills_[c]->copy_to(sink);
      });
      if (!s.ok()) {
        std::error_code ec;
        for (const auto& w : written) std::filesystem::remove(w, ec);
        return s;
      }
      written.push_back(out);
    }
    return Status::Ok();
  }

 private:
  // 1, 2 or 4 bytes (raw planes hold at most 16 bits: check_raw_planes).
  static int sample_bytes(const Component& comp) { return comp.precision <= 8 ? 1 : comp.precision <= 16 ? 2 : 4; }
  Status named(const Status& s) const { return s.ok() ? s : s.with_context(name_); }
  Status all_rows() const {
    const int64_t height = header_.components.empty() ? 0 : header_.components[0].height;
    if (done_ != height)
      return internal_error(name_ + ": " + std::to_string(done_) + " of " + std::to_string(height) + " rows written");
    return Status::Ok();
  }

  std::filesystem::path path_;
  Format format_;
  std::string name_;
  const ByteSink* first_ = nullptr;
  Image header_;
  std::vector<std::unique_ptr<SpillFile>> spills_;  // null for what goes to first_
  std::vector<uint8_t> bytes_;
  int64_t done_ = 0;
};

}  // namespace

bool writes_strips(Format format) {
  return format == Format::kPnm || format == Format::kTiff || format == Format::kPng || format == Format::kPgx ||
         format == Format::kRaw || format == Format::kRawl;
}

std::filesystem::path component_path(const std::filesystem::path& out, int c, const std::string& ext) {
  std::filesystem::path p = out;
  p.replace_filename(out.stem().string() + "_" + std::to_string(c) + ext);
  return p;
}

Status write_strips(const std::filesystem::path& path, const WriteOptions& options,
                    const std::function<Status(StripWriter&)>& produce) {
  const Format format = options.format != Format::kUnknown ? options.format : format_from_extension(path);
  if (!writes_strips(format))
    return unsupported(path.string() + ": " + format_name(format) + " is not written strip by strip");
  if (format == Format::kPgx || format == Format::kRaw || format == Format::kRawl) {
    PlaneStrips writer(path, format);
    if (format == Format::kPgx) {
      MALLAT_RETURN_IF_ERROR(produce(writer));
      return writer.finish_pgx();
    }
    return write_file_atomically(path, [&](const ByteSink& sink) {
      writer.set_first(&sink);
      MALLAT_RETURN_IF_ERROR(produce(writer));
      return writer.finish_raw(sink);
    });
  }
  PoolOnDemand pool(options.threads);
  return write_file_atomically(path, [&](const ByteSink& sink, const SizeHint& reserve) {
    std::unique_ptr<Strips> writer;
    if (format == Format::kTiff) writer = std::make_unique<TiffStrips>(path.string(), sink);
    else if (format == Format::kPng) writer = std::make_unique<PngStrips>(path.string(), options.png, sink);
    else writer = std::make_unique<PnmStrips>(path.string(), sink, reserve, pool);
    MALLAT_RETURN_IF_ERROR(produce(*writer));
    return writer->finish();
  });
}

}  // namespace mallat::io
