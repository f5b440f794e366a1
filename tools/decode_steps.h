// decode's three steps for one file (tools/batch.h): read the file, decode
// it (a lane's options; PNM output as a byte raster where the image allows,
// codec/api/decode.h), write it through the output policy (decode_output.h).
// The single-file command and the batch run the same steps, so a batch
// writes the same bytes.
#pragma once

#include <span>

#include "codec/api/decode.h"
#include "tools/batch.h"
#include "tools/decode_output.h"

namespace mallat::tools {

// `lanes`: each lane's decoding options (BatchItem::lane picks one);
// `output` and `reduce` (-r) for the output policy.
BatchSteps decode_steps(const DecodeOutputOptions& output, int reduce, std::span<const codec::DecodeOptions> lanes);

}  // namespace mallat::tools
