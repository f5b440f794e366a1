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
#include <mutex>

#include "io/bits.h"
#include "io/formats.h"

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

// The layout the pixel loops need.
struct Layout {
  uint32_t width, height;
  int bits, spp;
  bool planar, is_signed;
};

// Copies one decoded block (a strip or a tile) of `block_w` x `rows` pixels,
// whose top-left pixel is (x0, y0) and whose rows are `row_bytes` apart, into
// the image. `plane` is the component for planar data, -1 for contiguous.
void place_block(const Layout& l, const uint8_t* block, uint32_t block_w, uint32_t rows,
                 uint64_t row_bytes, uint32_t x0, uint32_t y0, int plane, Image& image,
                 std::vector<int32_t>& scratch) {
  const int per_pixel = plane < 0 ? l.spp : 1;
  const uint32_t w = std::min(block_w, l.width - x0);
  const uint32_t h = std::min(rows, l.height - y0);
  scratch.resize(static_cast<size_t>(block_w) * per_pixel);
  for (uint32_t r = 0; r < h; ++r) {
    const uint8_t* src = block + r * row_bytes;
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
    const int64_t base = int64_t{y0 + r} * l.width + x0;
    for (int c = 0; c < per_pixel; ++c) {
      int32_t* dst = image.components[plane < 0 ? c : plane].samples.data() + base;
      for (uint32_t x = 0; x < w; ++x) {
        int32_t v = scratch[size_t{x} * per_pixel + c];
        // Signed samples: two's complement in `bits` bits.
        if (l.is_signed && (v >> (l.bits - 1)) != 0) v -= int32_t{1} << l.bits;
        dst[x] = v;
      }
    }
  }
}

}  // namespace

Result<Image> decode_tiff(Bytes file, uint64_t max_memory) {
  install_handlers();
  tiff_error.clear();
  MemFile mem{file, 0};
  TiffHandle handle(&mem);
  TIFF* tif = handle.get();
  if (!tif) return tiff_failure("not a readable TIFF file");

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
  if (raster_bytes / kMaxExpansion > file.size())
    return corrupt_data("the header claims more pixels than the file can hold");

  Layout l{width, height, bits, spp, planar == PLANARCONFIG_SEPARATE,
           sample_format == SAMPLEFORMAT_INT};
  MALLAT_RETURN_IF_ERROR(check_image_memory(width, height, spp, max_memory));
  MALLAT_ASSIGN_OR_RETURN(Image image, make_image(width, height, spp, bits, l.is_signed));
  std::vector<int32_t> scratch;
  const int planes = l.planar ? spp : 1;

  if (TIFFIsTiled(tif)) {
    uint32_t tw = 0, th = 0;
    TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw);
    TIFFGetField(tif, TIFFTAG_TILELENGTH, &th);
    if (tw == 0 || th == 0) return corrupt_data("a tile size is zero");
    const tmsize_t tile_size = TIFFTileSize(tif);
    if (tile_size <= 0) return tiff_failure("bad tile size");
    const uint64_t row_bytes = packed_bytes(uint64_t{tw} * (l.planar ? 1 : spp), bits);
    if (row_bytes * th > static_cast<uint64_t>(tile_size)) return corrupt_data("bad tile size");
    std::vector<uint8_t> block(static_cast<size_t>(tile_size));
    for (int p = 0; p < planes; ++p)
      for (uint32_t y = 0; y < height; y += th)
        for (uint32_t x = 0; x < width; x += tw) {
          const uint32_t tile = TIFFComputeTile(tif, x, y, 0, static_cast<uint16_t>(p));
          if (TIFFReadEncodedTile(tif, tile, block.data(), tile_size) < 0)
            return tiff_failure("cannot read tile " + std::to_string(tile));
          place_block(l, block.data(), tw, th, row_bytes, x, y, l.planar ? p : -1, image, scratch);
        }
  } else {
    uint32_t rows_per_strip = height;
    TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rows_per_strip);
    rows_per_strip = std::clamp<uint32_t>(rows_per_strip, 1, height);
    const tmsize_t strip_size = TIFFStripSize(tif);
    if (strip_size <= 0) return tiff_failure("bad strip size");
    const uint64_t row_bytes = packed_bytes(uint64_t{width} * (l.planar ? 1 : spp), bits);
    std::vector<uint8_t> block(static_cast<size_t>(strip_size));
    const uint32_t strips_per_plane = (height + rows_per_strip - 1) / rows_per_strip;
    for (int p = 0; p < planes; ++p)
      for (uint32_t s = 0; s < strips_per_plane; ++s) {
        const uint32_t y = s * rows_per_strip;
        const uint32_t rows = std::min(rows_per_strip, height - y);
        const uint32_t strip = p * strips_per_plane + s;
        // A short strip is an error: every row of it must be present.
        const tmsize_t want = static_cast<tmsize_t>(row_bytes * rows);
        if (want > strip_size) return corrupt_data("bad strip size");
        if (TIFFReadEncodedStrip(tif, strip, block.data(), want) < want)
          return tiff_failure("cannot read strip " + std::to_string(strip));
        place_block(l, block.data(), width, rows, row_bytes, 0, y, l.planar ? p : -1, image,
                    scratch);
      }
  }
  image.color_space = colour_channels == 1 ? ColorSpace::kGray : ColorSpace::kRgb;
  image.has_alpha = extra_count > 0 && spp == colour_channels + 1 &&
                    (extra_types[0] == EXTRASAMPLE_ASSOCALPHA ||
                     extra_types[0] == EXTRASAMPLE_UNASSALPHA);
  uint32_t icc_length = 0;
  void* icc = nullptr;
  if (TIFFGetField(tif, TIFFTAG_ICCPROFILE, &icc_length, &icc) && icc)
    image.icc_profile.assign(static_cast<const uint8_t*>(icc), static_cast<const uint8_t*>(icc) + icc_length);
  return image;
}

}  // namespace mallat::io::detail
