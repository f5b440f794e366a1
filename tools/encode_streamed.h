// `mallat encode` of one file read in strips and encoded streamed
// (codec/api/encode_streamed.h), as run_one's steps (batch.h): nothing is
// read whole, and the file is written as it is assembled, to a temporary
// file renamed onto OUT at the end (no partial output on an error).
#pragma once

#include <memory>

#include "codec/api/encode.h"
#include "codec/api/engine.h"
#include "io/strip_reader.h"
#include "tools/batch.h"

namespace mallat::tools {

// Encodes through `engine` (Tier-1 as it placed it); `engine` and `opt`
// stay alive while the steps run.
BatchSteps encode_streamed_steps(Engine& engine, const codec::EncodeOptions& opt,
                                 std::shared_ptr<io::StripReader> reader);

}  // namespace mallat::tools
