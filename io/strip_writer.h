// Image files written strip by strip, top to bottom, never holding the whole
// image (the streamed decoder's output). The bytes are those of
// write_image for the same image (the same header and sample conversion
// code), written to a temporary file renamed into place on success.
#pragma once

#include <filesystem>
#include <functional>
#include <span>
#include <string>

#include "common/image.h"
#include "common/status.h"
#include "io/image_io.h"

namespace mallat::io {

class StripWriter {
 public:
  virtual ~StripWriter() = default;
  // Once, first: the image's geometry, precision and colour (samples empty).
  virtual Status begin(const Image& header) = 0;
  // The next rows: the header's components, each its width by the strip's
  // rows. The strips must cover the image's height.
  virtual Status rows(const Image& strip) = 0;
  // Whether raster_rows takes the header begin() was given: PNM only, of
  // unsigned components of 1 to 8 bits.
  virtual bool takes_raster() const { return false; }
  // The next `rows` rows already as the file's raster (PNM: each pixel's
  // components in turn, a byte each), where takes_raster.
  virtual Status raster_rows(std::span<const uint8_t> raster, int64_t rows) {
    (void)raster;
    (void)rows;
    return internal_error("this format takes no raster rows");
  }
};

// Whether write_strips writes `format`: PNM (P5/P6), TIFF (classic, or
// BigTIFF past 4 GiB, as write_image writes them), PNG (not interlaced),
// PGX and raw planes (.raw/.yuv big-endian, .rawl little-endian).
bool writes_strips(Format format);

// `out`'s stem + "_<c>" + ext beside it: the file of component c where a
// format holds one component (PGX, decode's -split-pnm).
std::filesystem::path component_path(const std::filesystem::path& out, int c, const std::string& ext);

// Writes `path` (its format from options.format or the extension): `produce`
// hands its rows to the StripWriter it is given; the file is renamed into
// place when produce returns OK and every row was written; otherwise no file
// is left. Errors name the file. The planar formats take components of one
// height: raw planes set components 1.. aside (a file beside `path`,
// unlinked) and append them after component 0 at the end; PGX writes one
// file per component, `path` for one, component_path(path, c, ".pgx") for
// more, all of them or none.
Status write_strips(const std::filesystem::path& path, const WriteOptions& options,
                    const std::function<Status(StripWriter&)>& produce);

}  // namespace mallat::io
