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
#include <span>
#include <string>
#include <vector>

#include "common/image.h"
#include "common/status.h"
#include "common/thread_pool.h"
#include "io/file.h"

namespace mallat::io::detail {

using Bytes = std::span<const uint8_t>;

Result<Image> decode_png(Bytes file, uint64_t max_memory);
Result<std::vector<uint8_t>> encode_png(const Image& image, bool interlace);
// PNG written row by row (png.cc; encode_png and the strip writer,
// strip_writer.h): start() takes the image's geometry, precision and ICC
// profile (no samples), then rows() in order — every row passes() times
// when interlaced — then finish(). The bytes go to `sink`.
class PngRowWriter {
 public:
  static Result<std::unique_ptr<PngRowWriter>> start(const Image& image, bool interlace, const ByteSink& sink);
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
Status write_binary_raster(const Image& image, const ByteSink& sink, ThreadPool& pool,
                           const std::function<Status()>& out_of_range);

Result<Image> decode_pgx(Bytes file, uint64_t max_memory);
Result<std::vector<uint8_t>> encode_pgx(const Component& component);

// Raw planes (raw.cc, io/raw.h): read only with a geometry given apart
// (read_raw); written as the components are. check_raw_planes: one
// precision and signedness of 1..16 bits, as raw files and -F hold them.
Status check_raw_planes(const Image& image);
Result<std::vector<uint8_t>> encode_raw(const Image& image, bool big_endian);

Result<Image> decode_bmp(Bytes file, uint64_t max_memory);
Result<std::vector<uint8_t>> encode_bmp(const Image& image);

// The readers refuse, before allocating, an image whose samples (int32, as
// Image holds them) would take more than `max_memory` bytes: a compressed
// PNG or TIFF of a few kilobytes can claim gigabytes (issue 7).
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
