// decode() over resources the caller made and keeps across calls
// (codec/stages/call_resources.h): the engine's entry point (engine/). The
// public decode (codec/api/decode.h) calls it with empty resources.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "codec/api/decode.h"
#include "codec/stages/call_resources.h"

namespace mallat::codec {

// As codec/api/decode.h's raster overload; `raster` may be null.
Result<Image> decode(std::span<const uint8_t> data, const DecodeOptions& options, const CallResources& resources,
                     DecodeReport* report, std::vector<uint8_t>* raster);

}  // namespace mallat::codec
