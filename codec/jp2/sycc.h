// sYCC (JP2 enumerated colour space 18, I.5.3.3) to sRGB: the inverse of the
// YCbCr matrix of IEC 61966-2-1 Amendment 1, as OpenJPEG's colour conversion
// applies it, so that a JP2 file decodes to the same RGB samples.
#pragma once

#include "common/image.h"
#include "common/status.h"

namespace mallat::codec {

// One sample triple at precision `bits` (chroma centred on 2^(bits-1)),
// clamped to 0..2^bits - 1.
struct Rgb {
  int32_t r, g, b;
};
Rgb sycc_sample_to_rgb(int bits, int32_t y, int32_t cb, int32_t cr);

// Components 0..2 (Y, Cb, Cr; unsigned, one precision) become R, G, B on the
// grid of component 0. Sub-sampled chroma (4:2:2, 4:2:0, any factor) is
// repeated over the luma samples it covers, found on the reference grid
// (B.2) at the decoded resolution (`reduce` levels discarded); a luma sample
// before the first chroma sample takes that first one (OpenJPEG feeds zero
// chroma there, which tints that column). Further components (alpha) stay.
Status sycc_to_rgb(Image& image, int reduce);

}  // namespace mallat::codec
