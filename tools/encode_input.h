// What `mallat encode -i IN` reads: an image file; raw planes (.raw, .yuv
// big-endian, .rawl little-endian) with the geometry -F gives, as
// opj_compress; or a comma-separated list of one-component files (PGX, PGM,
// ...), one per component, each at its own size, their sub-sampling derived
// from the sizes or given by -F's @ part (io/raw.h).
#pragma once

#include <cstdint>
#include <string>

#include <memory>

#include "common/image.h"
#include "common/status.h"
#include "io/image_io.h"
#include "io/strip_reader.h"

namespace mallat::tools {

// `raw_format`: -F's text, empty when not given. Errors name the file and
// say what is wrong (a raw file without -F, a size that does not match).
// `form`: io::read_image's, for a file read on its own.
Result<Image> read_encode_input(const std::string& in, const std::string& raw_format, uint64_t max_memory,
                                io::SampleForm form = io::SampleForm::kInt32);

// The same input read in strips (io/strip_reader.h) where its format allows
// (binary PNM, PGX, TIFF, raw planes with -F; a list of per-component files
// each of which is); null where it is read whole. Errors as
// read_encode_input's.
Result<std::unique_ptr<io::StripReader>> open_encode_strips(const std::string& in, const std::string& raw_format);

}  // namespace mallat::tools
