// The public decoding API: a JPEG 2000 codestream or JP2 file in memory to an
// Image (codec/codec.h has both directions). Only API types appear here; the
// machinery is in codec/decoder/, which a decoder-only program links alone.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "codec/api/coding_types.h"
#include "common/image.h"
#include "common/status.h"
#include "dwt/dwt.h"

namespace mallat::codec {

struct Jp2File;

struct DecodeOptions {
  int reduce = 0;      // -r: discard this many highest resolution levels
  int layers = 0;      // -l: decode only the first N quality layers; 0 = all
  int tile = -1;       // -t: decode only this tile; -1 = all
  int threads = 0;
  // --max-memory: refuse streams whose headers need more bytes than this
  // (codec/codestream/memory_limit.h); 0 = default_memory_limit().
  uint64_t max_memory = 0;
  dwt::BackendKind dwt_backend = dwt::BackendKind::kCpu;  // as EncodeOptions
};

// Non-fatal problems found while decoding (a truncated packet, a missing
// EOC): the image is what could be decoded, these say what was not.
struct DecodeReport {
  std::vector<std::string> warnings;
};

Result<Image> decode(std::span<const uint8_t> data, const DecodeOptions& options,
                     DecodeReport* report = nullptr);

// codec::decode, then for a JP2 file apply_jp2_header and, where the colour
// space is sYCC, the conversion to RGB (sycc.h): the image as opj_decompress
// gives it before its output options. A raw codestream is returned as decoded.
// jp2 receives the parsed boxes when it is not null (left empty for a raw
// codestream).
Result<Image> decode_jp2_image(std::span<const uint8_t> data, const DecodeOptions& options,
                               DecodeReport* report = nullptr, Jp2File* jp2 = nullptr);

}  // namespace mallat::codec
