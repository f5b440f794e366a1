// `mallat encode` of one file read in strips and encoded streamed
// (codec/api/encode_streamed.h), as run_one's steps (batch.h): nothing is
// read whole, and the file is written as it is assembled, to a temporary
// file renamed onto OUT at the end (no partial output on an error).
#pragma once

#include <functional>
#include <memory>

#include "codec/api/encode.h"
#include "codec/api/engine.h"
#include "io/strip_reader.h"
#include "tools/batch.h"

namespace mallat::tools {

// A streamed encode of the rows it is given into the sink it is given,
// telling the hint the file's size before its first byte.
using StreamedEncode = std::function<Status(const codec::RowSource& source, const codec::FileSink& sink,
                                            const codec::FileSizeHint* size_hint)>;

// The file's reader opened anew, for an encode that reads its rows again
// (codec::RowSource::rewind).
using ReopenStrips = std::function<Result<std::unique_ptr<io::StripReader>>()>;

// Encodes `file` from `reader` through `encode` into a temporary file
// renamed onto file.out once whole (none left on an error). The reader's
// and the output's errors name their files; the encoder's get the input's
// name, as the whole-image encode gives it. With `reopen`, the source can
// rewind (read from the first row again, through a reader it opens).
Status write_streamed_encode(const BatchFile& file, io::StripReader& reader, const StreamedEncode& encode,
                             const ReopenStrips& reopen = {});

// Encodes through `engine` (Tier-1 as it placed it; one image fed to the
// device whole where it placed it so, streamed_encode_feeds_device, its
// rows read again through `reopen` should the device fail); `engine` and
// `opt` stay alive while the steps run.
BatchSteps encode_streamed_steps(Engine& engine, const codec::EncodeOptions& opt,
                                 std::shared_ptr<io::StripReader> reader, ReopenStrips reopen = {});

}  // namespace mallat::tools
