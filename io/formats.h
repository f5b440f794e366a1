// The per-format coders behind image_io.h. Each decodes from the bytes of a
// whole file and encodes to bytes (PNM to a ByteSink, piece by piece), so
// that file access and atomic writing live in one place (file.cc) and the
// file name is added to messages by the caller. Not a public header: use
// image_io.h.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/image.h"
#include "common/status.h"
#include "common/thread_pool.h"
#include "io/file.h"
#include "io/image_io.h"
#include "io/raw.h"

namespace mallat::io::detail {

using Bytes = std::span<const uint8_t>;

Result<Image> decode_png(Bytes file, uint64_t max_memory);
Result<std::vector<uint8_t>> encode_png(const Image& image, bool interlace, const PngCompression& compression);
// PNG written row by row (png.cc; encode_png and the strip writer,
// strip_writer.h): start() takes the image's geometry, precision and ICC
// profile (no samples), then rows() in order — every row passes() times
// when interlaced — then finish(). The bytes go to `sink`.
class PngRowWriter {
 public:
  static Result<std::unique_ptr<PngRowWriter>> start(const Image& image, bool interlace,
                                                     const PngCompression& compression, const ByteSink& sink);
  ~PngRowWriter();
  int passes() const { return passes_; }
  Status rows(const Image& image, int64_t y0, int64_t y1);
  Status finish();

 private:
  PngRowWriter();
  struct State;
  std::unique_ptr<State> state_;
  int passes_ = 1;
};

// Only in builds with libtiff; encode_tiff needs no library. kAuto writes
// classic TIFF when its 32-bit offsets reach every byte, BigTIFF otherwise.
Result<Image> decode_tiff(Bytes file, uint64_t max_memory);
enum class TiffForm { kAuto, kClassic, kBig };
Result<std::vector<uint8_t>> encode_tiff(const Image& image, TiffForm form = TiffForm::kAuto);
// encode_tiff's file around its raster, from the image's geometry alone
// (the strip writer, strip_writer.h, writes the raster between them): the
// header, and the out-of-line values and IFD after the raster; and the
// raster's rows [y0, y1) of `image` (row_bytes each) into `out`.
struct TiffFrame {
  std::vector<uint8_t> head, tail;
  uint64_t row_bytes = 0;
};
Result<TiffFrame> tiff_frame(const Image& image, TiffForm form = TiffForm::kAuto);
void tiff_rows(const Image& image, int64_t y0, int64_t y1, const TiffFrame& frame, uint8_t* out);

Result<Image> decode_pnm(Bytes file, uint64_t max_memory);
// PNM is written in pieces, its rows converted on `pool`: the raster of a
// large image is the largest thing the decoder writes.
Status encode_pnm(const Image& image, const ByteSink& sink, ThreadPool& pool);
// The P5/P6 header of an image that check_interleavable accepts for PNM
// (the streamed writer, strip_writer.h, writes it too).
std::string pnm_header(const Image& image);

// PAM (Netpbm P7): any number of channels, 1..16 bits (pam.cc). decode_pnm
// hands P7 files to decode_pam.
Result<Image> decode_pam(Bytes file, uint64_t max_memory);
Status encode_pam(const Image& image, const ByteSink& sink, ThreadPool& pool);

// The binary raster of P5/P6/P7 (pnm.cc): samples interleaved, one byte each
// up to maxval 255, else two, big-endian. read_binary_raster checks the size
// and that no sample exceeds maxval; write_binary_raster converts rows on
// `pool` and returns out_of_range() when a sample exceeds the precision.
Result<Image> read_binary_raster(Bytes raster, uint64_t width, uint64_t height, int channels, uint64_t maxval);
// The raster's sample rules, shared with the strip reader (strip_reader.h):
// `pixels` interleaved pixels into one plane per channel; returns the
// largest sample (of one-byte samples only when largest_of_bytes). RGB and
// 16-bit grey go through byte shuffles where the CPU has AVX2; `plain`
// takes the per-channel loop they are tested against.
int32_t deinterleave_raster(const uint8_t* raster, uint64_t pixels, int channels, int bytes_per_sample,
                            int32_t* const* planes, bool largest_of_bytes, bool plain = false);
// The same appended to the samples of each of the image's components
// (their storage reserved: make_image_to_fill), each sample written once.
int32_t append_deinterleaved(const uint8_t* raster, uint64_t pixels, int bytes_per_sample, Image& image,
                             bool largest_of_bytes);
// The same into planes at the samples' stored width (Component::stored):
// one byte a sample as in the file, two in the host's order; `plain` as
// above (one-byte RGB has the AVX2 path). append_stored appends them to
// each component's stored samples (make_stored_image_to_fill).
int32_t split_stored(const uint8_t* raster, uint64_t pixels, int channels, int bytes_per_sample,
                     uint8_t* const* planes, bool largest_of_bytes, bool plain = false);
int32_t append_stored(const uint8_t* raster, uint64_t pixels, int bytes_per_sample, Image& image,
                      bool largest_of_bytes);
// write_binary_raster's conversion: rows [y0, y1) of `image` interleaved
// into `out`; false when a sample exceeds the precision (the bytes are then
// not to be used). 8-bit RGB goes through one pass with byte shuffles where
// the CPU has SSSE3, 16-bit RGB and grey where it has AVX2; `per_channel`
// takes the plain loop over each channel they are tested against.
bool interleave_raster(const Image& image, int64_t y0, int64_t y1, uint8_t* out, bool per_channel = false);
// The errors for a sample above maxval and a raster shorter than the header says.
Status check_maxval(int32_t largest, uint64_t maxval);
Status check_raster_size(uint64_t available, uint64_t width, uint64_t height, int channels, uint64_t maxval);

// A PNM header (P2, P3, P5, P6; P7 is only recognised: kind '7'): the raster
// starts at byte `raster`, after the one whitespace byte of P5/P6.
struct PnmHeader {
  char kind = 0;
  bool ascii = false;
  int channels = 1;
  uint64_t width = 0, height = 0, maxval = 0;
  size_t raster = 0;
};
Result<PnmHeader> read_pnm_header(Bytes file);
// A binary PNM (P5, P6) or PAM (P7) file read from `file` a piece of rows
// at a time, each converted as it comes: no buffer of the file's size.
// `head` holds the file's first bytes; nullopt when they are not such a
// file or do not hold its whole header (the whole file's reader then
// decides).
// With SampleForm::kStoredWhereCheap the components hold their samples at
// their stored width (Component::stored).
std::optional<Result<Image>> read_binary_pnm(const InputFile& file, Bytes head, uint64_t max_memory,
                                             SampleForm form = SampleForm::kInt32);
// The PAM header (pam.cc), shared with the strip reader: WIDTH, HEIGHT,
// DEPTH (pnm.channels), MAXVAL, the raster's start; TUPLTYPE, which
// set_pam_color reads for the image's colour space and alpha.
struct PamHeader {
  PnmHeader pnm;
  std::string tupltype;
};
Result<PamHeader> read_pam_header(Bytes file);
void set_pam_color(Image& image, const std::string& tupltype);
Status write_binary_raster(const Image& image, const ByteSink& sink, ThreadPool& pool,
                           const std::function<Status()>& out_of_range);

Result<Image> decode_pgx(Bytes file, uint64_t max_memory);
// The PGX header and sample rules, shared with the strip reader
// (strip_reader.h): the header's fields (samples start at byte `data`); the
// error of a file too short for its samples (`available` bytes after the
// header); `count` samples into `out`, `first` the index of the first (an
// error names the sample outside the precision and its index).
struct PgxHeader {
  bool big_endian = true, is_signed = false;
  int bits = 8, nbytes = 1;
  uint64_t width = 0, height = 0;
  size_t data = 0;
};
Result<PgxHeader> read_pgx_header(Bytes file);
Status check_pgx_size(const PgxHeader& header, uint64_t available);
Status convert_pgx_samples(const uint8_t* src, size_t count, const PgxHeader& header, size_t first, int32_t* out);
Result<std::vector<uint8_t>> encode_pgx(const Component& component);
// encode_pgx's header (its checks of the component's precision and size)
// and its samples, `count` of them into `out` (1, 2 or 4 bytes each); shared
// with the strip writer (strip_writer.h).
Result<std::string> pgx_header(const Component& component);
Status pgx_sample_bytes(const Component& component, const int32_t* samples, size_t count, uint8_t* out);

// Raw planes (raw.cc, io/raw.h): read only with a geometry given apart
// (read_raw); written as the components are. check_raw_planes: one
// precision and signedness of 1..16 bits, as raw files and -F hold them;
// without check_samples, of an image's header (its samples not there).
Status check_raw_planes(const Image& image, bool check_samples = true);
// Raw samples (1 or 2 bytes, either byte order, two's complement when
// signed) of component c into `out`, `first` the index in the component of
// the first; an error names the file (`name`), the sample, its row and
// column. read_raw and the strip reader share it.
Status convert_raw_samples(const uint8_t* src, size_t count, const RawGeometry& g, bool big_endian, int c,
                           size_t first, int32_t* out, const std::string& name);
// The errors of a geometry without size, bits or components, and of a file of another size.
Status check_raw_geometry(const RawGeometry& g, const std::string& name);
Status check_raw_file_size(const RawGeometry& g, uint64_t size, const std::string& name);
Result<std::vector<uint8_t>> encode_raw(const Image& image, bool big_endian);
// encode_raw's samples: `count` of component c (`comp` its header) into
// `out`, `first` the index of the first in the component (for the message
// that names one outside the precision); shared with the strip writer.
Status raw_sample_bytes(const Component& comp, int c, const int32_t* samples, size_t count, size_t first,
                        bool big_endian, uint8_t* out);

Result<Image> decode_bmp(Bytes file, uint64_t max_memory);
Result<std::vector<uint8_t>> encode_bmp(const Image& image);

// The readers refuse, before allocating, an image whose samples (int32, as
// Image holds them) would take more than `max_memory` bytes: a compressed
// PNG or TIFF of a few kilobytes can claim gigabytes.
Status check_image_memory(uint64_t width, uint64_t height, uint64_t components, uint64_t max_memory);

// What a writer of interleaved unsigned samples needs: a number of
// components in `counts`, of one size and one precision in 1..max_precision,
// unsigned, not sub-sampled. `format` names the format in the message.
// check_values = false leaves out the samples' values, for a writer that
// checks them as it converts them.
Status check_interleavable(const Image& image, const char* format,
                           std::initializer_list<int> counts, int max_precision,
                           bool check_values = true);

// Sets color_space and has_alpha from the number of components as PNG, TIFF
// and BMP use them: 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA.
void set_color_from_count(Image& image);

}  // namespace mallat::io::detail
