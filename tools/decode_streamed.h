// mallat decode of one file strip by strip: the codec's streamed
// decode (codec/api/decode_streamed.h) into a strip writer
// (io/strip_writer.h), each strip through the same output policy as a whole
// image (decode_output.h), so the file is the one the whole-image path
// writes, in a fraction of the memory.
#pragma once

#include <cstdint>
#include <optional>

#include "codec/api/decode.h"
#include "tools/batch.h"
#include "tools/decode_output.h"

namespace mallat::tools {

// The exit status of decoding `file` strip by strip (messages printed as
// run_one prints them), or nullopt, having written and printed nothing,
// where the output format, the options or the stream need the whole image.
std::optional<int> decode_one_streamed(const BatchFile& file, const codec::DecodeOptions& options,
                                       const DecodeOutputOptions& output, bool quiet);

// Whether a file of `decoded_samples` decodes strip by strip when neither
// --streamed nor --whole-image is given, with `threads` (0: all cores): at
// 64 M samples or more always (memory); below, for 5/3 streams always and
// for streams with a 9/7 component up to 2 threads (the faster path each
// time, measured: decode_streamed.cc).
bool streamed_by_default(uint64_t decoded_samples, bool irreversible, int threads);

}  // namespace mallat::tools
