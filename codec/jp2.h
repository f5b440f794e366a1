// The JP2 file format (Annex I): a box structure around the codestream.
// Writing makes the minimal conforming file (signature, ftyp, jp2h with ihdr
// and colr, jp2c); reading finds the codestream and the colour space.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "codec/codestream_header.h"
#include "common/image.h"
#include "common/status.h"

namespace mallat::codec {

// I.5.1: the 12-byte JPEG 2000 signature box starts the file.
bool is_jp2(std::span<const uint8_t> data);

struct Jp2Contents {
  std::span<const uint8_t> codestream;  // the jp2c box's payload
  ColorSpace color_space = ColorSpace::kUnknown;  // from colr (enumerated method)
};

Result<Jp2Contents> read_jp2(std::span<const uint8_t> data);

// Wraps a codestream whose main header is `main` into a JP2 file; the colour
// space is sRGB for 3+ components, greyscale otherwise (I.5.3.3).
Result<std::vector<uint8_t>> wrap_jp2(const Image& image, const MainHeader& main,
                                      std::vector<uint8_t> codestream);

}  // namespace mallat::codec
