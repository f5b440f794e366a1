// Decoding one tile of a parsed codestream into its place in the output
// image: Tier-2 packets, Tier-1 code-blocks, dequantisation, inverse DWT,
// inverse colour transform, DC level shift. codec::decode drives it per tile.
#pragma once

#include <cstdint>
#include <span>

#include "codec/api/decode.h"
#include "codec/codestream/codestream_header.h"
#include "codec/decoder/quirks.h"
#include "common/image.h"
#include "common/status.h"
#include "common/thread_pool.h"
#include "dwt/dwt.h"

namespace mallat::codec {

// `decoded` lists the codestream components decoded, ascending (all, or
// those -c asks for: component_selection.h); `image`'s components are
// those, with the output's sizes (reduced by options.reduce, or one tile's
// area); a component whose samples are still empty is allocated,
// zero-filled, by this tile. origin_x/origin_y give, per image component,
// the image's top-left on the component's reduced grid. Code-blocks of
// other components are read past in the packets and never decoded.
// Non-fatal damage (truncated packets) is reported in `report` and decodes
// as far as it goes; encoders' quirks are repaired and counted in `quirks`
// unless options.strict refuses them.
Status decode_tile(const Codestream& cs, const Tile& tile, const DecodeOptions& options,
                   std::span<const int> decoded, std::span<const uint8_t> stream, ThreadPool& pool, dwt::Backend& dwt,
                   std::span<const int64_t> origin_x, std::span<const int64_t> origin_y, Image& image,
                   DecodeReport* report, QuirkCounts& quirks);

}  // namespace mallat::codec
