// encode() and encode_streamed() over resources the caller made and keeps
// across calls (codec/stages/call_resources.h): the engine's entry points
// (engine/). The public functions (codec/api/encode.h, encode_streamed.h)
// call these with empty resources.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "codec/api/encode.h"
#include "codec/api/encode_streamed.h"
#include "codec/stages/call_resources.h"

namespace mallat::codec {

Result<std::vector<uint8_t>> encode(const Image& image, const EncodeOptions& options, const CallResources& resources,
                                    EncodeReport* report);

Status encode_streamed(const RowSource& source, const EncodeOptions& options, const CallResources& resources,
                       const FileSink& sink, EncodeReport* report, const FileSizeHint* size_hint = nullptr);

// The Part 1 block coder an encode uses with DWT backend `backend`: the
// resources' coder when set, else a device coder made now where the backend
// is CUDA's (the CUDA DWT asked for through options.dwt_backend), else null
// (the CPU's coders).
Result<std::shared_ptr<entropy::BlockEncoder>> block_encoder_for(const CallResources& resources,
                                                                 const dwt::Backend& backend);

}  // namespace mallat::codec
