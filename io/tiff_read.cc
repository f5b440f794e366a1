// TIFF reading through libtiff (compiled only when MALLAT_HAVE_TIFF): grey
// (min-is-black) and RGB, with extra samples (alpha), 1..16 bits per sample
// unsigned or signed, contiguous or planar, strips or tiles, any compression
// libtiff decodes. Samples whose width is not a multiple of 8 are packed
// MSB-first, each row (of a strip or tile) starting on a byte boundary.
#include <tiffio.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <system_error>

#include "io/bits.h"
#include "io/formats.h"
#include "io/strip_reader.h"

namespace mallat::io::detail {
namespace {

constexpr uint32_t kMaxSide = uint32_t{1} << 24;
// LZW and Deflate cannot expand data by more than this; a bound on what a
// header may make us allocate for a file of a given size.
constexpr uint64_t kMaxExpansion = 4200;

// libtiff's handlers are process-wide; the message of the last error goes to
// a per-thread buffer that the reader turns into a Status.
thread_local std::string tiff_error;

void on_tiff_error(const char* module, const char* fmt, va_list args) {
  char text[512];
  std::vsnprintf(text, sizeof text, fmt, args);
  if (tiff_error.empty()) tiff_error = std::string(module ? module : "libtiff") + ": " + text;
}

void install_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    TIFFSetErrorHandler(on_tiff_error);
    TIFFSetWarningHandler(nullptr);  // unknown tags and the like: not errors
  });
}

// A TIFF "file" that is the bytes in memory.
struct MemFile {
  Bytes data;
  uint64_t pos = 0;
};

tmsize_t mem_read(thandle_t h, void* buf, tmsize_t n) {
  auto* f = static_cast<MemFile*>(h);
  if (n <= 0 || f->pos >= f->data.size()) return 0;
  const uint64_t k = std::min<uint64_t>(static_cast<uint64_t>(n), f->data.size() - f->pos);
  std::memcpy(buf, f->data.data() + f->pos, k);
  f->pos += k;
  return static_cast<tmsize_t>(k);
}
tmsize_t mem_write(thandle_t, void*, tmsize_t) { return 0; }
toff_t mem_seek(thandle_t h, toff_t off, int whence) {
  auto* f = static_cast<MemFile*>(h);
  uint64_t base = whence == SEEK_CUR ? f->pos : whence == SEEK_END ? f->data.size() : 0;
  f->pos = base + off;
  return f->pos;
}
int mem_close(thandle_t) { return 0; }
toff_t mem_size(thandle_t h) { return static_cast<MemFile*>(h)->data.size(); }
int mem_map(thandle_t, void**, toff_t*) { return 0; }
void mem_unmap(thandle_t, void*, toff_t) {}

class TiffHandle {
 public:
  explicit TiffHandle(MemFile* file)
      : tif_(TIFFClientOpen("image", "rm", file, mem_read, mem_write, mem_seek, mem_close,
                            mem_size, mem_map, mem_unmap)) {}
  ~TiffHandle() {
    if (tif_) TIFFClose(tif_);
  }
  TiffHandle(const TiffHandle&) = delete;
  TiffHandle& operator=(const TiffHandle&) = delete;
  TIFF* get() const { return tif_; }

 private:
  TIFF* tif_;
};

Status tiff_failure(const std::string& what) {
  std::string detail = tiff_error.empty() ? "" : " (" + tiff_error + ")";
  return corrupt_data(what + detail);
}

// The layout the pixel loops need, and how the file holds it: in bands of
// band_rows rows (a strip's rows, or a row of tiles), each plane's band
// read as blocks of block_w pixels wide.
struct Layout {
  uint32_t width, height;
  int bits, spp;
  bool planar, is_signed;
  bool tiled = false;
  uint32_t block_w = 0, band_rows = 0;
  tmsize_t block_size = 0;
  uint64_t row_bytes = 0;  // of a block's row, packed
  int planes() const { return planar ? spp : 1; }
  uint32_t bands() const { return (height + band_rows - 1) / band_rows; }
};

// Copies one decoded block (a strip or a tile) of `block_w` x `rows` pixels,
// whose top-left pixel is (x0, y0), into `dst`: component c's row
// `first_row` at dst[c], rows `width` apart. `plane` is the component for
// planar data, -1 for contiguous.
void place_block(const Layout& l, const uint8_t* block, uint32_t rows, uint32_t x0, uint32_t y0, int plane,
                 int32_t* const* dst, uint32_t first_row, std::vector<int32_t>& scratch) {
  const int per_pixel = plane < 0 ? l.spp : 1;
  const uint32_t w = std::min(l.block_w, l.width - x0);
  const uint32_t h = std::min(rows, l.height - y0);
  scratch.resize(static_cast<size_t>(l.block_w) * per_pixel);
  for (uint32_t r = 0; r < h; ++r) {
    const uint8_t* src = block + r * l.row_bytes;
    if (l.bits == 16) {
      // libtiff hands 16-bit samples over in the host's byte order (it swaps
      // them for files of the other order); other widths stay packed bytes.
      for (int64_t i = 0; i < int64_t{w} * per_pixel; ++i) {
        uint16_t v;
        std::memcpy(&v, src + 2 * i, 2);
        scratch[i] = v;
      }
    } else {
      unpack_msb_first(src, l.bits, int64_t{w} * per_pixel, scratch.data());
    }
    const int64_t base = int64_t{y0 + r - first_row} * l.width + x0;
    for (int c = 0; c < per_pixel; ++c) {
      int32_t* out = dst[plane < 0 ? c : plane] + base;
      for (uint32_t x = 0; x < w; ++x) {
        int32_t v = scratch[size_t{x} * per_pixel + c];
        // Signed samples: two's complement in `bits` bits.
        if (l.is_signed && (v >> (l.bits - 1)) != 0) v -= int32_t{1} << l.bits;
        out[x] = v;
      }
    }
  }
}

// The checks of the header, and the image it describes without samples
// (components, colour, alpha, ICC profile). `file_size` bounds what the
// header may claim.
Result<Layout> read_layout(TIFF* tif, uint64_t file_size, Image& header) {
  uint32_t width = 0, height = 0;
  uint16_t bits = 1, spp = 1, photometric = 0, planar = PLANARCONFIG_CONTIG;
  uint16_t sample_format = SAMPLEFORMAT_UINT;
  if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width) ||
      !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height))
    return tiff_failure("no image width or length");
  TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
  TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &sample_format);
  if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric))
    return corrupt_data("no photometric interpretation");
  uint16_t extra_count = 0;
  uint16_t* extra_types = nullptr;
  TIFFGetFieldDefaulted(tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra_types);

  if (width == 0 || height == 0) return corrupt_data("the width or length is zero");
  if (width > kMaxSide || height > kMaxSide) return resource_limit("the image is too large");
  if (bits < 1 || bits > 16)
    return unsupported(std::to_string(bits) + " bits per sample (this reader takes 1..16)");
  if (sample_format != SAMPLEFORMAT_UINT && sample_format != SAMPLEFORMAT_INT)
    return unsupported("floating-point or complex samples");
  int colour_channels;
  if (photometric == PHOTOMETRIC_MINISBLACK) {
    colour_channels = 1;
  } else if (photometric == PHOTOMETRIC_RGB) {
    colour_channels = 3;
  } else {
    return unsupported("photometric interpretation " + std::to_string(photometric) +
                       " (only min-is-black grey and RGB are read)");
  }
  if (spp < colour_channels || spp > 16)
    return unsupported(std::to_string(spp) + " samples per pixel for photometric " +
                       std::to_string(photometric));
  const uint64_t raster_bytes = packed_bytes(uint64_t{width} * spp, bits) * height;
  if (raster_bytes / kMaxExpansion > file_size)
    return corrupt_data("the header claims more pixels than the file can hold");

  Layout l{width, height, bits, spp, planar == PLANARCONFIG_SEPARATE, sample_format == SAMPLEFORMAT_INT};
  l.tiled = TIFFIsTiled(tif);
  if (l.tiled) {
    TIFFGetField(tif, TIFFTAG_TILEWIDTH, &l.block_w);
    TIFFGetField(tif, TIFFTAG_TILELENGTH, &l.band_rows);
    if (l.block_w == 0 || l.band_rows == 0) return corrupt_data("a tile size is zero");
    l.block_size = TIFFTileSize(tif);
    if (l.block_size <= 0) return tiff_failure("bad tile size");
  } else {
    l.block_w = width;
    l.band_rows = height;
    TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &l.band_rows);
    l.band_rows = std::clamp<uint32_t>(l.band_rows, 1, height);
    l.block_size = TIFFStripSize(tif);
    if (l.block_size <= 0) return tiff_failure("bad strip size");
  }
  l.row_bytes = packed_bytes(uint64_t{l.block_w} * (l.planar ? 1 : spp), bits);
  // A tile holds all its rows; a strip at least the rows it has (below).
  if (l.tiled && l.row_bytes * l.band_rows > static_cast<uint64_t>(l.block_size))
    return corrupt_data("bad tile size");

  header = Image();
  for (int c = 0; c < spp; ++c) {
    Component comp;
    comp.width = width;
    comp.height = height;
    comp.precision = bits;
    comp.is_signed = l.is_signed;
    header.components.push_back(comp);
  }
  header.x1 = width;
  header.y1 = height;
  header.color_space = colour_channels == 1 ? ColorSpace::kGray : ColorSpace::kRgb;
  header.has_alpha = extra_count > 0 && spp == colour_channels + 1 &&
                     (extra_types[0] == EXTRASAMPLE_ASSOCALPHA || extra_types[0] == EXTRASAMPLE_UNASSALPHA);
  uint32_t icc_length = 0;
  void* icc = nullptr;
  if (TIFFGetField(tif, TIFFTAG_ICCPROFILE, &icc_length, &icc) && icc)
    header.icc_profile.assign(static_cast<const uint8_t*>(icc), static_cast<const uint8_t*>(icc) + icc_length);
  return l;
}

// Band `band` of every plane (its strips, or its row of tiles) into `dst`,
// whose rows start at the band's first row (place_block's dst).
Status read_band(TIFF* tif, const Layout& l, uint32_t band, int32_t* const* dst, uint32_t first_row,
                 std::vector<uint8_t>& block, std::vector<int32_t>& scratch) {
  block.resize(static_cast<size_t>(l.block_size));
  const uint32_t y = band * l.band_rows;
  for (int p = 0; p < l.planes(); ++p) {
    const int plane = l.planar ? p : -1;
    if (l.tiled) {
      for (uint32_t x = 0; x < l.width; x += l.block_w) {
        const uint32_t tile = TIFFComputeTile(tif, x, y, 0, static_cast<uint16_t>(p));
        if (TIFFReadEncodedTile(tif, tile, block.data(), l.block_size) < 0)
          return tiff_failure("cannot read tile " + std::to_string(tile));
        place_block(l, block.data(), l.band_rows, x, y, plane, dst, first_row, scratch);
      }
      continue;
    }
    const uint32_t rows = std::min(l.band_rows, l.height - y);
    const uint32_t strip = p * l.bands() + band;
    // A short strip is an error: every row of it must be present.
    const tmsize_t want = static_cast<tmsize_t>(l.row_bytes * rows);
    if (want > l.block_size) return corrupt_data("bad strip size");
    if (TIFFReadEncodedStrip(tif, strip, block.data(), want) < want)
      return tiff_failure("cannot read strip " + std::to_string(strip));
    place_block(l, block.data(), rows, 0, y, plane, dst, first_row, scratch);
  }
  return Status::Ok();
}

// A TIFF file read a band at a time (strip_reader.h): libtiff reads the
// file itself, only the blocks asked for.
class TiffStrips final : public BandedStrips {
 public:
  ~TiffStrips() override {
    if (tif_) TIFFClose(tif_);
  }
  Status open(const std::filesystem::path& path) {
    install_handlers();
    tiff_error.clear();
    std::error_code ec;
    const uint64_t size = std::filesystem::file_size(path, ec);
    if (ec) return io_error(path.string() + ": cannot open: " + ec.message());
    // "m": read, not mapped; the file may be larger than memory.
    tif_ = TIFFOpen(path.c_str(), "rm");
    if (!tif_) return tiff_failure("not a readable TIFF file");
    MALLAT_ASSIGN_OR_RETURN(layout_tiff_, read_layout(tif_, size, layout_));
    // Contiguous strips of more than kLargeStrip bytes decoded (one strip
    // for the whole image, compressed, say) are read a row at a time, in
    // order, as libtiff decodes any compression (TIFFReadScanline).
    constexpr uint64_t kLargeStrip = uint64_t{1} << 20;
    const Layout& l = layout_tiff_;
    by_row_ = !l.tiled && !l.planar && l.row_bytes * l.band_rows > kLargeStrip;
    start(path.string() + " (TIFF)");
    return Status::Ok();
  }

 private:
  int64_t band_end(int64_t from, int64_t until) const override {
    constexpr int64_t kRows = 16;  // rows read at once by row
    if (by_row_) return std::min<int64_t>(layout_.y1, std::max(until, from + kRows));
    const int64_t rows = layout_tiff_.band_rows;
    return std::min<int64_t>(layout_.y1, (std::max(until, from + 1) + rows - 1) / rows * rows);
  }
  Status read_band(int64_t from, int64_t to, int32_t* const* planes) override {
    tiff_error.clear();
    if (by_row_) {
      block_.resize(static_cast<size_t>(layout_tiff_.row_bytes));
      for (int64_t y = from; y < to; ++y) {
        if (TIFFReadScanline(tif_, block_.data(), static_cast<uint32_t>(y), 0) < 0)
          return tiff_failure("cannot read row " + std::to_string(y));
        place_block(layout_tiff_, block_.data(), 1, 0, static_cast<uint32_t>(y), -1, planes,
                    static_cast<uint32_t>(from), scratch_);
      }
      return Status::Ok();
    }
    const uint32_t rows = layout_tiff_.band_rows;
    for (uint32_t band = static_cast<uint32_t>(from / rows); int64_t{band} * rows < to; ++band)
      MALLAT_RETURN_IF_ERROR(
          detail::read_band(tif_, layout_tiff_, band, planes, static_cast<uint32_t>(from), block_, scratch_));
    return Status::Ok();
  }

  TIFF* tif_ = nullptr;
  Layout layout_tiff_{};
  bool by_row_ = false;
  std::vector<uint8_t> block_;
  std::vector<int32_t> scratch_;
};

}  // namespace

Result<Image> decode_tiff(Bytes file, uint64_t max_memory) {
  install_handlers();
  tiff_error.clear();
  MemFile mem{file, 0};
  TiffHandle handle(&mem);
  TIFF* tif = handle.get();
  if (!tif) return tiff_failure("not a readable TIFF file");
  Image image;
  MALLAT_ASSIGN_OR_RETURN(const Layout l, read_layout(tif, file.size(), image));
  MALLAT_RETURN_IF_ERROR(check_image_memory(l.width, l.height, l.spp, max_memory));
  for (Component& comp : image.components) comp.samples.assign(size_t{l.width} * l.height, 0);
  std::vector<int32_t*> dst;
  for (Component& comp : image.components) dst.push_back(comp.samples.data());
  std::vector<uint8_t> block;
  std::vector<int32_t> scratch;
  for (uint32_t band = 0; band < l.bands(); ++band)
    MALLAT_RETURN_IF_ERROR(read_band(tif, l, band, dst.data(), 0, block, scratch));
  return image;
}

}  // namespace mallat::io::detail

namespace mallat::io {

Result<std::unique_ptr<StripReader>> open_tiff_strips(const std::filesystem::path& path) {
  auto reader = std::make_unique<detail::TiffStrips>();
  const Status s = reader->open(path);
  if (!s.ok()) return s.code() == ErrorCode::kIoError ? s : s.with_context(path.string() + " (TIFF)");
  return std::unique_ptr<StripReader>(std::move(reader));
}

}  // namespace mallat::io
