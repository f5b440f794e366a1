// Resource limits for decoding (issue 7): before anything is allocated from
// a header, the decoder works out from the headers alone an upper bound of
// the memory the decode will hold at once, and refuses a stream that needs
// more than the limit. Hostile headers (a huge image, tiny precincts, 65535
// layers) then fail with a message instead of exhausting the machine.
#pragma once

#include <cstdint>

#include "codec/codestream/codestream_header.h"
#include "common/memory_limit.h"  // default_memory_limit()
#include "common/status.h"

namespace mallat::codec {

// An upper bound, in bytes, of what decoding `cs` (whose codestream is
// `stream_bytes` long) at resolution reduction `reduce` holds at once: the
// output image, the largest tile's working planes, code-block and precinct
// state and the packet sequence, and the copies of the packet data and of
// the packed headers. It takes the most demanding parameters any tile-part
// header sets, so it never underestimates; saturates instead of overflowing.
uint64_t estimate_decoder_memory(const Codestream& cs, int reduce, uint64_t stream_bytes);

// resource_limit error when the estimate exceeds `limit` (0: the default).
Status check_decoder_memory(const Codestream& cs, int reduce, uint64_t stream_bytes, uint64_t limit);

}  // namespace mallat::codec
