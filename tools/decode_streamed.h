// mallat decode of one file strip by strip: the codec's streamed
// decode (codec/api/decode_streamed.h) into a strip writer
// (io/strip_writer.h), each strip through the same output policy as a whole
// image (decode_output.h), so the file is the one the whole-image path
// writes, in a fraction of the memory.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "codec/api/decode.h"
#include "codec/api/engine.h"
#include "io/mapped_file.h"
#include "tools/batch.h"
#include "tools/decode_output.h"

namespace mallat::tools {

// One file to decode strip by strip: mapped, not read (it is not held
// whole either), and about its decoded samples (0 where its header cannot be
// read).
struct StreamedDecodeInput {
  io::MappedFile data;
  uint64_t samples = 0;
};

// `file` mapped where its output format, the options and its header let it
// decode strip by strip (streamed_by_default, --streamed, --whole-image),
// else nullopt. Asked before the placement, which depends on it.
std::optional<StreamedDecodeInput> streamed_decode_input(const BatchFile& file, const codec::DecodeOptions& options,
                                                         const DecodeOutputOptions& output);

// Whether `file` (its bytes `data`) decodes strip by strip on `threads`
// threads: its output format is written in strips and no option needs the
// whole image; --streamed, or by default streamed_by_default on its
// header's shape (a header that cannot be read: at one thread only).
bool streams(const BatchFile& file, std::span<const uint8_t> data, const codec::DecodeOptions& options,
             const DecodeOutputOptions& output, int threads);

// A streamed decode of one file into the sink it is given
// (codec/api/decode_streamed.h): false where the stream needs the whole
// image.
using StreamedDecode = std::function<Result<bool>(codec::RowSink&)>;

// Writes `file` strip by strip from `decode`, through the same output
// policy as a whole image: the image as written (its description, no
// samples) where the file was written (its notes and the raw planes'
// read-back line added to `messages`), nullopt where it was not (the
// stream needs the whole image, or failed; no file is left, and the
// whole-image path gives the errors). `mapped`: the input, whose pages are
// let go as strips are written; null for bytes in memory.
std::optional<Image> write_streamed(const BatchFile& file, const codec::DecodeOptions& options,
                                   const DecodeOutputOptions& output, const io::MappedFile* mapped,
                                   const StreamedDecode& decode, std::vector<std::string>* messages);

// The exit status of decoding `file` (`input`) strip by strip through
// `engine` (messages printed as run_one prints them), or nullopt, having
// written and printed nothing, where the stream needs the whole image.
std::optional<int> decode_one_streamed(const StreamedDecodeInput& input, Engine& engine, const BatchFile& file,
                                       const codec::DecodeOptions& options, const DecodeOutputOptions& output,
                                       bool quiet);

// Whether a file of `decoded_samples` decodes strip by strip when neither
// --streamed nor --whole-image is given, with `threads` (0: all cores): at
// 64 M samples or more always (memory); below, for 5/3 streams always and
// for streams with a 9/7 component up to 2 threads (the faster path each
// time, measured: decode_streamed.cc).
bool streamed_by_default(uint64_t decoded_samples, bool irreversible, int threads);

}  // namespace mallat::tools
