// PNG through libpng's low-level API, with no libpng transformations except
// de-interlacing: the stored samples are unpacked here (1..16 bits, MSB
// first, 16-bit big-endian), so no gamma (gAMA, sRGB, iCCP) or depth change
// can touch them. A palette is expanded to 8-bit RGB, with tRNS as alpha; a
// grey or RGB file with a tRNS colour key gets an alpha component of the same
// precision (0 where the key matches, full elsewhere).
//
// libpng reports errors by longjmp, so the functions that call it keep every
// C++ object they touch alive outside the setjmp frame and do no other work.
#include <png.h>

#include <csetjmp>
#include <cstring>

#include "io/bits.h"
#include "io/formats.h"

namespace mallat::io::detail {
namespace {

constexpr png_uint_32 kMaxSide = png_uint_32{1} << 24;

// State shared with libpng's callbacks.
struct PngIo {
  Bytes input;
  size_t input_pos = 0;
  const ByteSink* output = nullptr;
  Status output_status;  // the sink's error, which stops libpng
  char error[256] = {};
};

void on_error(png_structp png, png_const_charp message) {
  auto* io = static_cast<PngIo*>(png_get_error_ptr(png));
  std::snprintf(io->error, sizeof io->error, "%s", message);
  png_longjmp(png, 1);
}

void on_warning(png_structp, png_const_charp) {}  // ancillary-chunk noise: not our business

void read_callback(png_structp png, png_bytep out, size_t n) {
  auto* io = static_cast<PngIo*>(png_get_io_ptr(png));
  if (io->input.size() - io->input_pos < n) png_error(png, "truncated: the file ends inside a chunk");
  std::memcpy(out, io->input.data() + io->input_pos, n);
  io->input_pos += n;
}

void write_callback(png_structp png, png_bytep in, size_t n) {
  auto* io = static_cast<PngIo*>(png_get_io_ptr(png));
  if (!io->output_status.ok()) return;
  io->output_status = (*io->output)({in, n});
  if (!io->output_status.ok()) png_error(png, "the output failed");
}

void flush_callback(png_structp) {}

// What the header says, copied out of libpng's structures.
struct PngHeader {
  png_uint_32 width = 0, height = 0;
  int bit_depth = 0, color_type = 0;
  size_t rowbytes = 0;
  std::vector<png_color> palette;
  std::vector<uint8_t> palette_alpha;  // tRNS for palette images
  bool has_key = false;                // tRNS colour key for grey/RGB
  png_color_16 key = {};
};

// Reads the header into `h`. Returns false with io.error set on failure.
bool run_png_read_header(png_structp png, png_infop info, PngHeader& h) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_user_limits(png, kMaxSide, kMaxSide);
  // Only IHDR, PLTE, tRNS, IDAT, IEND (which libpng always handles) and iCCP
  // matter here; every other chunk is skipped unread. libpng would otherwise
  // allocate a buffer of the length an ancillary chunk such as sPLT claims
  // before reading it: a 121-byte file whose sPLT claimed 1.5 GB did so (a
  // fuzz finding, fuzz/regressions/png/).
  png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, nullptr, -1);
  static const png_byte kIccp[] = {'i', 'C', 'C', 'P', '\0'};
  png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_AS_DEFAULT, kIccp, 1);
  png_read_info(png, info);
  png_get_IHDR(png, info, &h.width, &h.height, &h.bit_depth, &h.color_type, nullptr, nullptr,
               nullptr);
  png_colorp plte = nullptr;
  int nplte = 0;
  if (png_get_PLTE(png, info, &plte, &nplte)) h.palette.assign(plte, plte + nplte);
  png_bytep trans = nullptr;
  int ntrans = 0;
  png_color_16p key = nullptr;
  if (png_get_tRNS(png, info, &trans, &ntrans, &key)) {
    if (h.color_type == PNG_COLOR_TYPE_PALETTE) {
      h.palette_alpha.assign(trans, trans + ntrans);
    } else if (key) {
      h.has_key = true;
      h.key = *key;
    }
  }
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  h.rowbytes = png_get_rowbytes(png, info);
  return true;
}

// Reads all rows, de-interlaced, into `rows` (each h.rowbytes long), then the
// chunks after the image data.
bool run_png_read_rows(png_structp png, png_infop info, std::vector<png_bytep>& rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_read_image(png, rows.data());
  png_read_end(png, info);
  return true;
}

class PngReadHandle {
 public:
  explicit PngReadHandle(PngIo& io) {
    png_ = png_create_read_struct(PNG_LIBPNG_VER_STRING, &io, on_error, on_warning);
    if (png_) info_ = png_create_info_struct(png_);
    if (png_) png_set_read_fn(png_, &io, read_callback);
  }
  ~PngReadHandle() { png_destroy_read_struct(&png_, info_ ? &info_ : nullptr, nullptr); }
  PngReadHandle(const PngReadHandle&) = delete;
  PngReadHandle& operator=(const PngReadHandle&) = delete;
  png_structp png() const { return png_; }
  png_infop info() const { return info_; }

 private:
  png_structp png_ = nullptr;
  png_infop info_ = nullptr;
};

int channels_of(int color_type) {
  switch (color_type) {
    case PNG_COLOR_TYPE_GRAY: return 1;
    case PNG_COLOR_TYPE_GRAY_ALPHA: return 2;
    case PNG_COLOR_TYPE_RGB: return 3;
    case PNG_COLOR_TYPE_RGB_ALPHA: return 4;
    case PNG_COLOR_TYPE_PALETTE: return 1;
  }
  return 0;
}

}  // namespace

Result<Image> decode_png(Bytes file, uint64_t max_memory) {
  PngIo io;
  io.input = file;
  PngReadHandle handle(io);
  if (!handle.png() || !handle.info()) return internal_error("libpng could not start");
  PngHeader h;
  std::vector<png_bytep> rows;
  if (!run_png_read_header(handle.png(), handle.info(), h))
    return corrupt_data(std::string("bad PNG header: ") + io.error);
  const int channels = channels_of(h.color_type);
  if (channels == 0) return corrupt_data("unknown PNG colour type");
  std::vector<uint8_t> icc;
  {
    png_charp name = nullptr;
    int compression = 0;
    png_bytep profile = nullptr;
    png_uint_32 length = 0;
    if (png_get_iCCP(handle.png(), handle.info(), &name, &compression, &profile, &length) && profile)
      icc.assign(profile, profile + length);
  }
  // Deflate expands at most about 1032:1, so a file cannot hold more pixel
  // bytes than that; refuse before allocating for a header that claims more.
  const uint64_t raster = static_cast<uint64_t>(h.rowbytes) * h.height;
  if (raster / 1100 > file.size())
    return corrupt_data("the header claims " + std::to_string(h.width) + "x" +
                        std::to_string(h.height) + " pixels, more than the file can hold");
  const bool palette = h.color_type == PNG_COLOR_TYPE_PALETTE;
  const int out_channels = palette ? (h.palette_alpha.empty() ? 3 : 4)
                                   : channels + (h.has_key ? 1 : 0);
  // The rows take at most 2 bytes a sample, the image 4: one check covers both.
  MALLAT_RETURN_IF_ERROR(check_image_memory(h.width, h.height, out_channels, max_memory));
  std::vector<uint8_t> pixels;
  try {
    pixels.resize(raster);
    rows.resize(h.height);
  } catch (const std::bad_alloc&) {
    return resource_limit("out of memory for the PNG rows");
  }
  for (png_uint_32 y = 0; y < h.height; ++y) rows[y] = pixels.data() + y * h.rowbytes;
  if (!run_png_read_rows(handle.png(), handle.info(), rows))
    return corrupt_data(std::string("bad PNG data: ") + io.error);

  const int precision = palette ? 8 : h.bit_depth;
  const int64_t w = h.width, ht = h.height;
  MALLAT_ASSIGN_OR_RETURN(Image image, make_image(w, ht, out_channels, precision, false));
  std::vector<int32_t> row(static_cast<size_t>(w) * channels);
  const int32_t full = (1 << precision) - 1;
  for (int64_t y = 0; y < ht; ++y) {
    unpack_msb_first(rows[y], h.bit_depth, w * channels, row.data());
    const int64_t base = y * w;
    for (int64_t x = 0; x < w; ++x) {
      const int32_t* px = &row[x * channels];
      if (palette) {
        const size_t idx = static_cast<size_t>(px[0]);
        if (idx >= h.palette.size()) return corrupt_data("a pixel indexes past the palette");
        image.components[0].samples[base + x] = h.palette[idx].red;
        image.components[1].samples[base + x] = h.palette[idx].green;
        image.components[2].samples[base + x] = h.palette[idx].blue;
        if (out_channels == 4)
          image.components[3].samples[base + x] =
              idx < h.palette_alpha.size() ? h.palette_alpha[idx] : 255;
        continue;
      }
      for (int c = 0; c < channels; ++c) image.components[c].samples[base + x] = px[c];
      if (h.has_key) {
        const bool match = channels == 1 ? px[0] == h.key.gray
                                         : px[0] == h.key.red && px[1] == h.key.green &&
                                               px[2] == h.key.blue;
        image.components[channels].samples[base + x] = match ? 0 : full;
      }
    }
  }
  set_color_from_count(image);
  image.icc_profile = std::move(icc);
  return image;
}

namespace {

// The longjmp frames of the writer's libpng calls (see the top of the file).
// The PNG_FILTER_ mask of a filter choice.
int filter_mask(PngFilter filter) {
  switch (filter) {
    case PngFilter::kNone: return PNG_FILTER_NONE;
    case PngFilter::kSub: return PNG_FILTER_SUB;
    case PngFilter::kUp: return PNG_FILTER_UP;
    case PngFilter::kAverage: return PNG_FILTER_AVG;
    case PngFilter::kPaeth: return PNG_FILTER_PAETH;
    case PngFilter::kAll: return PNG_ALL_FILTERS;
  }
  return PNG_ALL_FILTERS;
}

bool run_png_start(png_structp png, png_infop info, const PngHeader& h, int precision,
                   const std::vector<uint8_t>& icc, bool interlace, const PngCompression& compression, int* passes) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_compression_level(png, compression.level);
  png_set_filter(png, PNG_FILTER_TYPE_BASE, filter_mask(compression.filter));
  png_set_IHDR(png, info, h.width, h.height, h.bit_depth, h.color_type,
               interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (precision != h.bit_depth) {
    // sBIT records the true precision; the samples themselves are not scaled.
    png_color_8 sbit = {};
    const auto p = static_cast<png_byte>(precision);
    sbit.red = sbit.green = sbit.blue = sbit.gray = sbit.alpha = p;
    png_set_sBIT(png, info, &sbit);
  }
  // An ICC profile of the samples' colour space goes into iCCP (PNG 11.3.3.3).
  // libpng's checks of the profile warn rather than fail the image: a PCS
  // illuminant a unit off D50 (as in the JP2 conformance file7) is written,
  // a profile libpng cannot take is left out.
  if (!icc.empty()) png_set_benign_errors(png, 1);
  if (!icc.empty()) png_set_iCCP(png, info, "ICC profile", PNG_COMPRESSION_TYPE_BASE, icc.data(), static_cast<png_uint_32>(icc.size()));
  png_write_info(png, info);
  // png_write_image's passes: 7 rows of every row when interlaced, else 1.
  *passes = png_set_interlace_handling(png);
  return true;
}

bool run_png_rows(png_structp png, png_bytepp rows, png_uint_32 n) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_write_rows(png, rows, n);
  return true;
}

bool run_png_end(png_structp png, png_infop info) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_write_end(png, info);
  return true;
}

}  // namespace

struct PngRowWriter::State {
  PngIo io;
  png_structp png = nullptr;
  png_infop info = nullptr;
  PngHeader h;
  std::vector<uint8_t> pixels;
  std::vector<png_bytep> rows;
  std::vector<int32_t> row;
  ~State() { png_destroy_write_struct(&png, info ? &info : nullptr); }
  Status failed() const {
    return !io.output_status.ok() ? io.output_status : internal_error(std::string("libpng failed to write: ") + io.error);
  }
};

PngRowWriter::PngRowWriter() : state_(std::make_unique<State>()) {}
PngRowWriter::~PngRowWriter() = default;

Result<std::unique_ptr<PngRowWriter>> PngRowWriter::start(const Image& image, bool interlace,
                                                          const PngCompression& compression, const ByteSink& sink) {
  if (compression.level < 0 || compression.level > 9)
    return invalid_argument("the PNG compression level must be 0 to 9, not " + std::to_string(compression.level));
  const int n = image.num_components();
  const int precision = image.components[0].precision;
  std::unique_ptr<PngRowWriter> writer(new PngRowWriter());
  State& st = *writer->state_;
  PngHeader& h = st.h;
  h.width = static_cast<png_uint_32>(image.width());
  h.height = static_cast<png_uint_32>(image.height());
  if (image.width() > kMaxSide || image.height() > kMaxSide)
    return invalid_argument("the image is too large for this PNG writer");
  static const int kTypes[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                               PNG_COLOR_TYPE_RGB_ALPHA};
  h.color_type = kTypes[n - 1];
  // PNG depths: 1, 2, 4, 8, 16 for grey; 8, 16 otherwise. Take the smallest that holds.
  h.bit_depth = precision > 8 ? 16 : (n > 1 || precision > 4) ? 8 : precision > 2 ? 4 : precision;
  h.rowbytes = packed_bytes(static_cast<uint64_t>(image.width()) * n, h.bit_depth);
  st.io.output = &sink;
  st.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &st.io, on_error, on_warning);
  st.info = st.png ? png_create_info_struct(st.png) : nullptr;
  if (!st.png || !st.info) return internal_error("libpng could not start");
  png_set_write_fn(st.png, &st.io, write_callback, flush_callback);
  // iCCP only where the profile's data colour space (ICC header bytes 16..19)
  // is that of the PNG: GRAY for grey (+ alpha), RGB for colour (+ alpha).
  std::vector<uint8_t> icc;
  if (image.icc_profile.size() >= 128) {
    const std::string space(image.icc_profile.begin() + 16, image.icc_profile.begin() + 20);
    if (space == (n <= 2 ? "GRAY" : "RGB ")) icc = image.icc_profile;
  }
  if (!run_png_start(st.png, st.info, h, precision, icc, interlace, compression, &writer->passes_)) return st.failed();
  return writer;
}

Status PngRowWriter::rows(const Image& image, int64_t y0, int64_t y1) {
  State& st = *state_;
  const int n = image.num_components();
  const int64_t w = image.width();
  st.pixels.resize(st.h.rowbytes * static_cast<size_t>(y1 - y0));
  st.rows.resize(static_cast<size_t>(y1 - y0));
  for (int64_t y = y0; y < y1; ++y) st.rows[y - y0] = st.pixels.data() + (y - y0) * st.h.rowbytes;
  if (st.h.bit_depth >= 8) {
    // 8- and 16-bit samples are laid out as a binary PNM raster's
    // (big-endian, PNG 7.1), rows back to back: its conversion serves. The
    // samples were checked against the precision before.
    if (!interleave_raster(image, y0, y1, st.pixels.data()))
      return internal_error("a PNG sample is outside its precision");
  } else {
    st.row.resize(static_cast<size_t>(w) * n);
    for (int64_t y = y0; y < y1; ++y) {
      for (int64_t x = 0; x < w; ++x)
        for (int c = 0; c < n; ++c) st.row[x * n + c] = image.components[c].samples[y * w + x];
      pack_msb_first(st.row.data(), 1, st.h.bit_depth, w * n, st.rows[y - y0]);
    }
  }
  if (!run_png_rows(st.png, st.rows.data(), static_cast<png_uint_32>(y1 - y0))) return st.failed();
  return Status::Ok();
}

Status PngRowWriter::finish() {
  if (!run_png_end(state_->png, nullptr)) return state_->failed();
  return Status::Ok();
}

Result<std::vector<uint8_t>> encode_png(const Image& image, bool interlace, const PngCompression& compression) {
  MALLAT_RETURN_IF_ERROR(check_interleavable(image, "PNG", {1, 2, 3, 4}, 16));
  std::vector<uint8_t> out;
  const ByteSink sink = [&](std::span<const uint8_t> piece) {
    out.insert(out.end(), piece.begin(), piece.end());
    return Status::Ok();
  };
  MALLAT_ASSIGN_OR_RETURN(std::unique_ptr<PngRowWriter> writer, PngRowWriter::start(image, interlace, compression, sink));
  for (int pass = 0; pass < writer->passes(); ++pass) MALLAT_RETURN_IF_ERROR(writer->rows(image, 0, image.height()));
  MALLAT_RETURN_IF_ERROR(writer->finish());
  return out;
}

}  // namespace mallat::io::detail
