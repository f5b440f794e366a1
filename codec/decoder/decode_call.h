// decode() and decode_streamed() over resources the caller made and keeps
// across calls (codec/stages/call_resources.h): the engine's entry points
// (engine/). The public functions (codec/api/decode.h, decode_streamed.h)
// call these with empty resources.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "codec/api/decode.h"
#include "codec/api/decode_streamed.h"
#include "codec/stages/call_resources.h"

namespace mallat::codec {

// As codec/api/decode.h's raster overload; `raster` may be null.
Result<Image> decode(std::span<const uint8_t> data, const DecodeOptions& options, const CallResources& resources,
                     DecodeReport* report, std::vector<uint8_t>* raster);

// As codec/api/decode_streamed.h's, on resources.pool and resources.dwt
// where set; the code-blocks through resources.block_decoder where set
// (the stage times are not taken).
Result<bool> decode_streamed(std::span<const uint8_t> data, const DecodeOptions& options,
                             const CallResources& resources, RowSink& sink, DecodeReport* report);

}  // namespace mallat::codec
