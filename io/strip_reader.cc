#include "io/strip_reader.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <system_error>
#include <vector>

#include <unistd.h>

#include "io/formats.h"
#include "io/image_io.h"

namespace mallat::io {
namespace {

// An open file read from known offsets; closed with the reader.
class InputFile {
 public:
  ~InputFile() {
    if (f_) std::fclose(f_);
  }
  Status open(const std::filesystem::path& path) {
    f_ = std::fopen(path.c_str(), "rb");
    if (!f_) return io_error(path.string() + ": cannot open: " + std::strerror(errno));
    return Status::Ok();
  }
  // `bytes` bytes at `offset`; an error when the file ends first.
  Status read_at(uint64_t offset, uint8_t* out, size_t bytes, const std::string& name) {
    if (offset != position_ && fseeko(f_, static_cast<off_t>(offset), SEEK_SET) != 0)
      return io_error(name + ": cannot seek to byte " + std::to_string(offset));
    const size_t got = std::fread(out, 1, bytes, f_);
    position_ = offset + got;
    if (got != bytes) return corrupt_data(name + ": the file ended while reading its samples");
    return Status::Ok();
  }
  // The same from any thread, at once with others: the file's position
  // is not moved.
  Status read_at_any_thread(uint64_t offset, uint8_t* out, size_t bytes, const std::string& name) const {
    size_t got = 0;
    while (got < bytes) {
      const ssize_t n = pread(fileno(f_), out + got, bytes - got, static_cast<off_t>(offset + got));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return io_error(name + ": cannot read byte " + std::to_string(offset + got) + ": " + std::strerror(errno));
      if (n == 0) return corrupt_data(name + ": the file ended while reading its samples");
      got += static_cast<size_t>(n);
    }
    return Status::Ok();
  }
  // Up to `bytes` bytes from the start (a header).
  std::vector<uint8_t> head(size_t bytes) {
    std::vector<uint8_t> out(bytes);
    std::rewind(f_);
    out.resize(std::fread(out.data(), 1, bytes, f_));
    position_ = out.size();
    return out;
  }

 private:
  std::FILE* f_ = nullptr;
  uint64_t position_ = 0;
};

uint64_t size_of_file(const std::filesystem::path& path) {
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  return ec ? 0 : size;
}

// P5 / P6 and PAM (P7): every component's rows come from the same
// interleaved rows, read a band of at least kStripRows rows at a time.
class PnmStrips final : public detail::BandedStrips {
 public:
  Status open(const std::filesystem::path& path) {
    MALLAT_RETURN_IF_ERROR(file_.open(path));
    // Comments may make a header long; 64 KiB holds any sensible one.
    const std::vector<uint8_t> head = file_.head(64 << 10);
    std::string tupltype;
    if (head.size() >= 2 && head[0] == 'P' && head[1] == '7') {
      MALLAT_ASSIGN_OR_RETURN(detail::PamHeader pam, detail::read_pam_header(head));
      header_ = pam.pnm;
      tupltype = std::move(pam.tupltype);
      format_ = "PAM";
    } else {
      MALLAT_ASSIGN_OR_RETURN(header_, detail::read_pnm_header(head));
    }
    if (header_.kind != '5' && header_.kind != '6' && header_.kind != '7')
      return unsupported(std::string("P") + header_.kind + " is not read in strips");
    MALLAT_RETURN_IF_ERROR(detail::check_raster_size(size_of_file(path) - std::min<uint64_t>(size_of_file(path), header_.raster),
                                                     header_.width, header_.height, header_.channels, header_.maxval));
    bytes_per_sample_ = header_.maxval < 256 ? 1 : 2;
    layout_.x1 = static_cast<int64_t>(header_.width);
    layout_.y1 = static_cast<int64_t>(header_.height);
    for (int c = 0; c < header_.channels; ++c) {
      Component comp;
      comp.width = layout_.x1;
      comp.height = layout_.y1;
      comp.precision = std::bit_width(header_.maxval);
      layout_.components.push_back(comp);
    }
    if (header_.kind == '7') {
      detail::set_pam_color(layout_, tupltype);
    } else {
      detail::set_color_from_count(layout_);
    }
    start(path.string());
    return Status::Ok();
  }

  bool reads_together() const override { return true; }
  bool reads_stored() const override { return true; }
  // Nothing read here: the raster's rows lie at known offsets, so each
  // conversion reads its own rows (on its own thread) and deinterleaves
  // them as read_band does.
  Result<Conversion> read_together(int64_t rows) override {
    MALLAT_ASSIGN_OR_RETURN(const int64_t first, take_rows(rows));
    return Conversion([this, first, rows](int64_t y0, int64_t y1, int32_t* const* out) -> Status {
      return convert_rows(first, rows, y0, y1, [&](const uint8_t* raster, uint64_t pixels) {
        return detail::deinterleave_raster(raster, pixels, header_.channels, bytes_per_sample_, out,
                                           header_.maxval < 255);
      });
    });
  }
  // The same rows split at their stored width (the file's one or two bytes
  // a sample), the same maxval check.
  Result<StoredConversion> read_together_stored(int64_t rows) override {
    MALLAT_ASSIGN_OR_RETURN(const int64_t first, take_rows(rows));
    return StoredConversion([this, first, rows](int64_t y0, int64_t y1, uint8_t* const* out) -> Status {
      return convert_rows(first, rows, y0, y1, [&](const uint8_t* raster, uint64_t pixels) {
        return detail::split_stored(raster, pixels, header_.channels, bytes_per_sample_, out, header_.maxval < 255);
      });
    });
  }

 private:
  int64_t band_end(int64_t from, int64_t until) const override {
    constexpr int64_t kStripRows = 16;
    return std::min(layout_.y1, std::max(until, from + kStripRows));
  }
  Status read_band(int64_t from, int64_t to, int32_t* const* planes) override {
    const size_t row_bytes = static_cast<size_t>(layout_.x1) * header_.channels * bytes_per_sample_;
    raster_.resize(static_cast<size_t>(to - from) * row_bytes);
    MALLAT_RETURN_IF_ERROR(file_.read_at(header_.raster + static_cast<uint64_t>(from) * row_bytes, raster_.data(),
                                         raster_.size(), name_));
    const int32_t largest = detail::deinterleave_raster(raster_.data(), static_cast<uint64_t>((to - from) * layout_.x1),
                                                        header_.channels, bytes_per_sample_, planes,
                                                        header_.maxval < 255);
    const Status in_range = detail::check_maxval(largest, header_.maxval);
    if (!in_range.ok()) return in_range.with_context(name_ + " (" + format_ + ")");
    return Status::Ok();
  }

  // The next `rows` rows for a conversion: the first of them.
  Result<int64_t> take_rows(int64_t rows) {
    if (rows < 0 || together_next_ + rows > layout_.y1) return invalid_argument(name_ + ": rows asked beyond the image");
    const int64_t first = together_next_;
    together_next_ += rows;
    return first;
  }
  // Rows [y0, y1) of the `rows` from `first` read on the calling thread and
  // handed to `split` (raster, pixels), which returns the largest sample.
  template <typename Split>
  Status convert_rows(int64_t first, int64_t rows, int64_t y0, int64_t y1, const Split& split) const {
    if (y0 < 0 || y1 > rows || y0 > y1) return invalid_argument(name_ + ": rows converted beyond those read");
    const size_t row_bytes = static_cast<size_t>(layout_.x1) * header_.channels * bytes_per_sample_;
    thread_local std::vector<uint8_t> raster;
    raster.resize(static_cast<size_t>(y1 - y0) * row_bytes);
    MALLAT_RETURN_IF_ERROR(file_.read_at_any_thread(header_.raster + static_cast<uint64_t>(first + y0) * row_bytes,
                                                    raster.data(), raster.size(), name_));
    const int32_t largest = split(raster.data(), static_cast<uint64_t>((y1 - y0) * layout_.x1));
    const Status in_range = detail::check_maxval(largest, header_.maxval);
    return in_range.ok() ? in_range : in_range.with_context(name_ + " (" + format_ + ")");
  }

  InputFile file_;
  detail::PnmHeader header_;
  std::string format_ = "PNM";
  int bytes_per_sample_ = 1;
  std::vector<uint8_t> raster_;
  int64_t together_next_ = 0;
};

// PGX: one component, its rows read as asked.
class PgxStrips final : public StripReader {
 public:
  Status open(const std::filesystem::path& path) {
    name_ = path.string() + " (PGX)";
    MALLAT_RETURN_IF_ERROR(file_.open(path));
    const std::vector<uint8_t> head = file_.head(64 << 10);
    MALLAT_ASSIGN_OR_RETURN(header_, detail::read_pgx_header(head));
    const uint64_t size = size_of_file(path);
    MALLAT_RETURN_IF_ERROR(detail::check_pgx_size(header_, size - std::min<uint64_t>(size, header_.data)));
    Component comp;
    comp.width = static_cast<int64_t>(header_.width);
    comp.height = static_cast<int64_t>(header_.height);
    comp.precision = header_.bits;
    comp.is_signed = header_.is_signed;
    layout_.components.push_back(comp);
    layout_.x1 = comp.width;
    layout_.y1 = comp.height;
    layout_.color_space = ColorSpace::kGray;
    return Status::Ok();
  }

  Status read_rows(int c, int64_t rows, int32_t* out) override {
    if (c != 0 || next_ + rows > layout_.y1) return invalid_argument(name_ + ": rows asked beyond the image");
    const size_t first = static_cast<size_t>(next_ * layout_.x1), count = static_cast<size_t>(rows * layout_.x1);
    bytes_.resize(count * header_.nbytes);
    MALLAT_RETURN_IF_ERROR(file_.read_at(header_.data + first * header_.nbytes, bytes_.data(), bytes_.size(), name_));
    next_ += rows;
    const Status s = detail::convert_pgx_samples(bytes_.data(), count, header_, first, out);
    return s.ok() ? s : s.with_context(name_);
  }

 private:
  std::string name_;
  InputFile file_;
  detail::PgxHeader header_;
  int64_t next_ = 0;
  std::vector<uint8_t> bytes_;
};

// Raw planes: each component from its own place in the file.
class RawStrips final : public StripReader {
 public:
  Status open(const std::filesystem::path& path, const RawGeometry& g, bool big_endian) {
    name_ = path.string() + (big_endian ? " (raw, big-endian)" : " (raw, little-endian)");
    MALLAT_RETURN_IF_ERROR(detail::check_raw_geometry(g, name_));
    MALLAT_RETURN_IF_ERROR(file_.open(path));
    MALLAT_RETURN_IF_ERROR(detail::check_raw_file_size(g, size_of_file(path), name_));
    geometry_ = g;
    big_endian_ = big_endian;
    layout_ = raw_planes_layout(g);
    nbytes_ = g.precision <= 8 ? 1 : 2;
    uint64_t start = 0;
    for (const Component& comp : layout_.components) {
      start_.push_back(start);
      start += static_cast<uint64_t>(comp.width * comp.height) * nbytes_;
    }
    next_.assign(layout_.components.size(), 0);
    return Status::Ok();
  }

  Status read_rows(int c, int64_t rows, int32_t* out) override {
    if (c < 0 || c >= layout_.num_components() || next_[c] + rows > layout_.components[c].height)
      return invalid_argument(name_ + ": rows asked beyond the image");
    const int64_t w = layout_.components[c].width;
    const size_t first = static_cast<size_t>(next_[c] * w), count = static_cast<size_t>(rows * w);
    bytes_.resize(count * nbytes_);
    MALLAT_RETURN_IF_ERROR(file_.read_at(start_[c] + first * nbytes_, bytes_.data(), bytes_.size(), name_));
    next_[c] += rows;
    return detail::convert_raw_samples(bytes_.data(), count, geometry_, big_endian_, c, first, out, name_);
  }

 private:
  std::string name_;
  InputFile file_;
  RawGeometry geometry_;
  bool big_endian_ = true;
  int nbytes_ = 1;
  std::vector<uint64_t> start_;
  std::vector<int64_t> next_;
  std::vector<uint8_t> bytes_;
};

// The format of a file read in strips, by its magic; kUnknown for others.
Format strip_format(const std::filesystem::path& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return Format::kUnknown;
  unsigned char magic[4] = {0, 0, 0, 0};
  const size_t got = std::fread(magic, 1, 4, f);
  std::fclose(f);
  const Format format = format_from_magic(magic, got);
  if (format == Format::kPnm && (magic[1] == '5' || magic[1] == '6')) return format;
  if (format == Format::kPam) return format;
  if (format == Format::kPgx) return format;
#ifdef MALLAT_HAVE_TIFF
  if (format == Format::kTiff) return format;
#endif
  return Format::kUnknown;
}

}  // namespace

namespace detail {

void BandedStrips::start(std::string name) {
  name_ = std::move(name);
  planes_.assign(layout_.components.size(), {});
  next_.assign(layout_.components.size(), 0);
}

Status BandedStrips::read_rows(int c, int64_t rows, int32_t* out) {
  if (c < 0 || c >= layout_.num_components() || next_[c] + rows > layout_.y1)
    return invalid_argument(name_ + ": rows asked beyond the image");
  if (next_[c] + rows > first_ + held_) MALLAT_RETURN_IF_ERROR(fill(next_[c] + rows));
  const int64_t width = layout_.x1;
  std::copy_n(planes_[c].data() + (next_[c] - first_) * width, rows * width, out);
  next_[c] += rows;
  return Status::Ok();
}

// Drops the rows every component has taken and reads on to row `until`.
Status BandedStrips::fill(int64_t until) {
  const int64_t width = layout_.x1;
  const int64_t taken = *std::min_element(next_.begin(), next_.end()) - first_;
  for (auto& plane : planes_) plane.erase(plane.begin(), plane.begin() + taken * width);
  first_ += taken;
  held_ -= taken;
  while (first_ + held_ < until) {
    const int64_t from = first_ + held_, to = band_end(from, until);
    std::vector<int32_t*> dst;
    for (auto& plane : planes_) {
      plane.resize(static_cast<size_t>((held_ + to - from) * width));
      dst.push_back(plane.data() + held_ * width);
    }
    MALLAT_RETURN_IF_ERROR(read_band(from, to, dst.data()));
    held_ += to - from;
  }
  return Status::Ok();
}

}  // namespace detail

Result<StripReader::Conversion> StripReader::read_together(int64_t) {
  return unsupported("this reader reads each component's rows on their own");
}

Result<StripReader::StoredConversion> StripReader::read_together_stored(int64_t) {
  return unsupported("this reader converts its rows to int32 samples only");
}

bool reads_in_strips(const std::filesystem::path& path) {
  const Format format = format_from_extension(path);
  return format == Format::kRaw || format == Format::kRawl || strip_format(path) != Format::kUnknown;
}

Result<std::unique_ptr<StripReader>> open_strips(const std::filesystem::path& path) {
  switch (strip_format(path)) {
    case Format::kPnm:
    case Format::kPam: return open_pnm_strips(path);
    case Format::kPgx: return open_pgx_strips(path);
#ifdef MALLAT_HAVE_TIFF
    case Format::kTiff: return open_tiff_strips(path);
#endif
    default: return std::unique_ptr<StripReader>();
  }
}

Result<std::unique_ptr<StripReader>> open_pnm_strips(const std::filesystem::path& path) {
  auto reader = std::make_unique<PnmStrips>();
  const Status s = reader->open(path);
  if (!s.ok())
    return s.code() == ErrorCode::kIoError ? s : s.with_context(path.string() + (strip_format(path) == Format::kPam ? " (PAM)" : " (PNM)"));
  return std::unique_ptr<StripReader>(std::move(reader));
}

Result<std::unique_ptr<StripReader>> open_pgx_strips(const std::filesystem::path& path) {
  auto reader = std::make_unique<PgxStrips>();
  const Status s = reader->open(path);
  if (!s.ok()) return s.code() == ErrorCode::kIoError ? s : s.with_context(path.string() + " (PGX)");
  return std::unique_ptr<StripReader>(std::move(reader));
}

Result<std::unique_ptr<StripReader>> open_raw_strips(const std::filesystem::path& path, const RawGeometry& geometry,
                                                     bool big_endian) {
  auto reader = std::make_unique<RawStrips>();
  MALLAT_RETURN_IF_ERROR(reader->open(path, geometry, big_endian));
  return std::unique_ptr<StripReader>(std::move(reader));
}

}  // namespace mallat::io
