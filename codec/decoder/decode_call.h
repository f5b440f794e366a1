// decode() and decode_streamed() over resources the caller made and keeps
// across calls (codec/stages/call_resources.h): the engine's entry points
// (engine/). The public functions (codec/api/decode.h, decode_streamed.h)
// call these with empty resources.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
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

// As decode_streamed's contract, for an image whose tiles go to the device
// runner whole (resources.device_tiles): decoded as decode() decodes it
// into a raster in device memory (resources.device_raster is set here;
// device_raster.h), then handed to `sink` strip by strip, each copied down
// on its turn, so the host never holds the image's samples (an image that
// does not fit bytes is decoded into host memory and handed over as one
// strip). False, the sink untouched, where there are no device tiles or no
// device rasters can be made; an error after the sink began is returned as
// such (the caller drops what it wrote). A strip is about `strip_bytes`
// (whole rows, at least one): long runs for the writer, a small part of a
// large image.
// A byte vector for a strip: one the sink has written and given back
// (RowSink::spent_bytes, gathered into `spare`), else a new one; a reused
// one's memory is written again without the zero-fill and page faults of
// a fresh one.
inline std::vector<uint8_t> reused_bytes(RowSink& sink, std::vector<std::vector<uint8_t>>& spare) {
  for (std::vector<uint8_t>& v : sink.spent_bytes()) spare.push_back(std::move(v));
  if (spare.empty()) return {};
  std::vector<uint8_t> v = std::move(spare.back());
  spare.pop_back();
  return v;
}

inline constexpr int64_t kDeviceStripBytes = int64_t{4} << 20;
Result<bool> decode_from_device_raster(std::span<const uint8_t> data, const DecodeOptions& options,
                                       CallResources resources, RowSink& sink, DecodeReport* report,
                                       int64_t strip_bytes = kDeviceStripBytes);

}  // namespace mallat::codec
