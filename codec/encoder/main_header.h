// The main header of an encode from the image and the options (A.5, A.6),
// and the progression changes each tile's packets follow (A.6.6, B.12).
#pragma once

#include <map>
#include <vector>

#include "codec/api/encode.h"
#include "codec/codestream/codestream_header.h"
#include "common/image.h"
#include "common/status.h"

namespace mallat::codec {

// The image area's size on the reference grid (B.2): each component's size
// must be its B-2 extent under its sub-sampling, at -d's origin.
Result<GridSize> check_image(const Image& image, const EncodeOptions& o, bool with_samples);

// Builds the main header from the image and the options (A.5, A.6); a note
// goes to `report` (when given) where the colour transform is left out.
Result<MainHeader> main_header_for(const Image& image, GridSize grid, const EncodeOptions& o,
                                   EncodeReport* report);

// -POC: the changes of each tile, checked (A.6.6) and, where they leave
// packets out, completed by one more change over everything in the COD order
// (B.12.2: a decoder sends only what the changes name).
Result<std::map<int, std::vector<ProgressionChange>>> tile_progression_changes(const MainHeader& main,
                                                                               const EncodeOptions& o);

}  // namespace mallat::codec
