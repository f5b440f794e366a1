// The decoded image's description, shared by decode() and decode_streamed():
// its components' sizes at the reduced resolution (B-14) and colour space,
// before any sample is decoded.
#pragma once

#include <cstdint>
#include <vector>

#include "codec/codestream/codestream_header.h"
#include "codec/decoder/component_selection.h"
#include "common/image.h"
#include "common/status.h"
#include "dwt/geometry.h"

namespace mallat::codec {

// Whether any tile has the multiple component transform on (COD of the
// main header or of a tile-part header, A.6.1).
bool any_colour_transform(const Codestream& cs);

// The image of `area` (reference grid) holding the components
// selection.decoded at resolution -r `reduce`, samples empty; origin_x/y
// get each one's top-left on its reduced grid. color_space: what colr
// enumerates, or kUnknown.
Result<Image> output_image(const ImageAndTileSize& siz, const dwt::Rect& area, int reduce,
                           const ComponentSelection& selection, ColorSpace color_space,
                           std::vector<int64_t>& origin_x, std::vector<int64_t>& origin_y);

}  // namespace mallat::codec
