// mallat.info: what a codestream's main header (A.5, A.6) and, for a JP2
// file, its header boxes (I.5.3) say, without decoding any tile.
#pragma once

#include <cstdint>
#include <span>

#include <pybind11/pybind11.h>

namespace mallat::python {

// A dict of the image's size, components, tiling and coding style; raises
// the codec's error (CorruptDataError, ...) when the headers do not parse.
pybind11::dict stream_info(std::span<const uint8_t> data);

}  // namespace mallat::python
