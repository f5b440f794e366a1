// numpy arrays and bytes-like objects as the codec takes and gives them: an
// array's sample type and strides as a StridedArray (array_image.h), the
// bytes of a buffer, and a decoded Image as an array of the chosen channels.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "common/image.h"
#include "dwt/geometry.h"
#include "python/src/array_image.h"

namespace mallat::python {

// A 2-D (height, width) or 3-D (height, width, channels) array of a
// supported integer dtype, as a StridedArray over its memory; `what` names
// the array in the error.
StridedArray strided_view(const pybind11::array& a, const char* what);

// The bytes of a bytes-like object that the package has made one contiguous
// run of bytes (memoryview(...).cast('B')).
std::span<const uint8_t> byte_span(const pybind11::buffer_info& info);

pybind11::bytes to_bytes(const std::vector<uint8_t>& v);

// The full-resolution image area of a stream on the reference grid (A.5.1).
dwt::Rect image_area(std::span<const uint8_t> data);

// The codestream components to decode for the channels components= names
// (negative from the end), each once, in the order first named, and the
// channels as indices into the image so decoded; none when the decoder
// cannot pick them itself (DecodeOptions::components): a JP2 header that
// makes channels of several components (Annex I: pclr expands, cdef
// reorders, sYCC converts to RGB) needs them all, and an index that does not
// exist is left to the whole decode to report.
struct PickedComponents {
  std::vector<int> decode, channels;
};
std::optional<PickedComponents> components_to_decode(std::span<const uint8_t> data, const std::vector<int>& channels);

// The chosen components of `image` (or all), cropped to `region`, as a new
// array or written into `out`. `squeeze` drops the channel axis of one
// channel. `area` is the region's (height, width) when there is one.
pybind11::array image_to_array(const Image& image, std::optional<std::vector<int>> components,
                               const std::optional<Region>& region, int reduce, std::pair<int64_t, int64_t> area,
                               bool squeeze, std::optional<pybind11::array> out);

}  // namespace mallat::python
