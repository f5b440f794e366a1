// Image files read in strips: the rows of each component top to bottom, a
// few at a time, never the whole image (the streamed encoder's input,
// codec/api/encode_streamed.h). The checks and messages are the
// whole-image readers' (image_io.h, raw.h), through the same header parsing
// and sample conversion; a problem found in a later strip (a sample above
// maxval) is an error of the read that meets it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>

#include "common/image.h"
#include "common/status.h"
#include "io/raw.h"

namespace mallat::io {

class StripReader {
 public:
  virtual ~StripReader() = default;
  // The image as read_image would give it, its samples empty: components'
  // sizes, precision, signedness, sub-sampling; colour space; x1, y1.
  const Image& layout() const { return layout_; }
  // The next `rows` rows of component c (rows x its width samples) into
  // `out`. Each component is read top to bottom on its own; components
  // read together stay a strip apart at most, or the reader buffers more.
  virtual Status read_rows(int c, int64_t rows, int32_t* out) = 0;

 protected:
  Image layout_;
};

// Whether `path` (by its extension and magic) is a format read in strips:
// binary PNM (P5, P6) and raw planes. Others (PNG, TIFF, PAM, PGX, BMP,
// ASCII PNM) are read whole.
bool reads_in_strips(const std::filesystem::path& path);

// Opens a binary PNM file. Errors name the file, as read_image's.
Result<std::unique_ptr<StripReader>> open_pnm_strips(const std::filesystem::path& path);

// Opens raw planes of this geometry (raw.h); big_endian for .raw / .yuv.
// The file's size is checked first, as read_raw does.
Result<std::unique_ptr<StripReader>> open_raw_strips(const std::filesystem::path& path, const RawGeometry& geometry,
                                                     bool big_endian);

}  // namespace mallat::io
