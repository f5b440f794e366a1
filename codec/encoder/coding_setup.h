// What every tile of one encode shares (TileCodingSetup), from the main
// header: each subband's step and synthesis energy, each component's colour
// weight and ROI shift, the tiles' own progression changes.
#pragma once

#include "codec/api/encode.h"
#include "codec/codestream/codestream_header.h"
#include "codec/encoder/tile_encoder.h"
#include "common/image.h"
#include "common/status.h"

namespace mallat::codec {

// The setup for `image` coded under `main`; it points at both, which must
// outlive it. Passes' distortions are estimated (and HT blocks coded at
// every plane) under a rate target or a byte limit only.
Result<TileCodingSetup> coding_setup(const Image& image, const MainHeader& main, const EncodeOptions& options);

}  // namespace mallat::codec
