// Resource limits for decoding: before anything is allocated from
// a header, the decoder works out from the headers alone an upper bound of
// the memory the decode will hold at once, and refuses a stream that needs
// more than the limit. Hostile headers (a huge image, tiny precincts, 65535
// layers) then fail with a message instead of exhausting the machine.
#pragma once

#include <cstdint>
#include <optional>

#include "codec/codestream/codestream_header.h"
#include "common/memory_limit.h"  // default_memory_limit()
#include "common/status.h"
#include "dwt/geometry.h"

namespace mallat::codec {

// An upper bound, in bytes, of what decoding `cs` (whose codestream is
// `stream_bytes` long) at resolution reduction `reduce` holds at once: the
// output image, the largest tile's working planes, code-block and precinct
// state and the packet sequence, and the copies of the packet data and of
// the packed headers. It takes the most demanding parameters any tile-part
// header sets, so it never underestimates; saturates instead of overflowing.
// With a `region` (DecodeOptions::region, reference-grid coordinates) the
// output is the region and the working planes are the region's windows: per
// level the window with one code-block of the largest size and the filter's
// margin on each side, clipped to the tile-component (the region decoder's
// band buffers and DWT windows, codec/decoder/tile_decoder.cc).
uint64_t estimate_decoder_memory(const Codestream& cs, int reduce, uint64_t stream_bytes,
                                 const std::optional<dwt::Rect>& region = std::nullopt);

// resource_limit error when the estimate exceeds `limit` (0: the default).
Status check_decoder_memory(const Codestream& cs, int reduce, uint64_t stream_bytes, uint64_t limit,
                            const std::optional<dwt::Rect>& region = std::nullopt);

}  // namespace mallat::codec
