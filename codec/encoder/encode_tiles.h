// encode()'s steps after the samples are read, shared by the whole-image
// encode (codec/api/encode.h) and the streamed one (encode_streamed.h):
// the checks and headers from the image's layout, each tile coded by the
// caller's choice, rate allocation, the file.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "codec/api/encode.h"
#include "codec/api/encode_streamed.h"
#include "codec/encoder/tile_encoder.h"
#include "codec/stages/call_resources.h"

namespace mallat::codec {

struct TileCoding {
  // Codes tile `index` of `count` into `tile` (TileEncoder::code, or
  // code_rows for a streamed encode).
  std::function<Status(TileEncoder& tile, int index, int count)> code;
  // Whether the image holds its samples (else only its layout: sizes,
  // precision, sub-sampling; -q then is refused).
  bool with_samples = true;
  // When set, the file goes to it in pieces, no copy of it is made, and
  // encode_tiles returns no bytes.
  const FileSink* sink = nullptr;
  // With a sink: told the file's size before its first byte, where set.
  const FileSizeHint* size_hint = nullptr;
};

Result<std::vector<uint8_t>> encode_tiles(const Image& image, const EncodeOptions& options,
                                          const CallResources& resources, EncodeReport* report,
                                          const TileCoding& coding);

}  // namespace mallat::codec
