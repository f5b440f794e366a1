// mallat decode of one file strip by strip (issue 17): the codec's streamed
// decode (codec/api/decode_streamed.h) into a strip writer
// (io/strip_writer.h), each strip through the same output policy as a whole
// image (decode_output.h), so the file is the one the whole-image path
// writes, in a fraction of the memory.
#pragma once

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

}  // namespace mallat::tools
