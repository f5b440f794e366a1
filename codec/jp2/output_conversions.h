// What opj_decompress does to a decoded image before writing it, each step
// behind its option there: bring sub-sampled components to the image grid
// (-upsample), force a precision (-p), replicate grey into RGB (-force-rgb).
// They work on the grid of the decoded resolution: `reduce` is the number of
// discarded resolution levels the image was decoded at (DecodeOptions::reduce).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/image.h"
#include "common/status.h"

namespace mallat::codec {

// Where component `c`'s first sample sits on the reduced reference grid
// (B.2, with the grid divided by 2^reduce): ceil(ceil(x0 / 2^reduce) / dx).
int64_t component_origin_x(const Image& image, int c, int reduce);
int64_t component_origin_y(const Image& image, int c, int reduce);

// Whether all components have one size (nothing to upsample).
bool components_share_grid(const Image& image);

// Each sub-sampled component replaced by one on the image grid (dx = dy = 1),
// each sample repeated over the grid points it covers (B.2); points before a
// component's first sample take its nearest one, and so do points past its
// last. The image size is the image area's (Image::x1, y1; B-14 at `reduce`)
// when known, else that of a component with dx = dy = 1 when there is one,
// else the smallest extent the components cover.
Status upsample_components(Image& image, int reduce);

// -p: per component, a precision (0 keeps the component's) and whether to
// scale (S) or clip (C, the default). Fewer entries than components: the last
// repeats.
struct PrecisionRequest {
  int bits = 0;
  bool scale = false;
};
// Parses "<bits>[C|S][,<bits>[C|S]]...", bits 0..31. Errors say what is wrong.
Result<std::vector<PrecisionRequest>> parse_precision_requests(const std::string& text);

// As opj_decompress: clip to the new range, or scale: down by a right shift,
// up by v * (2^new - 1) / (2^old - 1) (signed: by 2^(new-1) / 2^(old-1)).
void force_precision(Image& image, const std::vector<PrecisionRequest>& requests);

// A greyscale image (1 or 2 components: grey, grey + alpha) becomes RGB (+
// alpha) with the grey channel copied three times; an RGB image is left as it
// is; anything else is an error (-force-rgb).
Status force_rgb(Image& image);

}  // namespace mallat::codec
