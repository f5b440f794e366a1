// The lanes of a batch that codes several files at once (run_batch's
// files_at_once, --batch-files K): each lane its own copy of the codec
// options with a DWT backend of its own (a backend's calls run one at a
// time), all sharing the one device coder, which puts the lanes' device
// blocks in one launch (entropy/coalesced_launch.h).
#pragma once

#include <string>
#include <vector>

#include "codec/api/decode.h"
#include "codec/api/encode.h"
#include "common/status.h"
#include "tools/option_table.h"

namespace mallat::tools {

// Files coded at once when --batch-files is not given. H200 machine, 16
// threads, 32 copies of the 3840x2048 mosaic, lossless, median wall s
// (entropy/cuda/NOTES.md, "Files at once" and "What serialises a batch"):
// with the GPU's 2 slots (tools/device_options.h) K = 2, 3: encode 2.23,
// 1.85-1.89 s; decode 1.97, 1.61-1.75 s; K = 4 no better (2.09, 1.93 s);
// the CPU path K = 2, 3, 4: encode 3.73-3.91, 3.80, 3.51 s; decode
// 3.49-3.73, 3.37, 3.38 s. With the GPU a lane spends about half of each
// file waiting for its launch, so a third lane keeps the GPU fed.
inline constexpr int kDefaultBatchFiles = 3;

// Parses --batch-files' value: a whole number from 1 to 16.
Status parse_batch_files(const std::string& value, int* files);

// --batch-files K, for encode's and decode's tables (Settings::batch_files).
template <typename Settings>
Option<Settings> batch_files_row() {
  return {{"--batch-files"}, "K",
          "a batch codes K files at once (default 3), each with -threads threads; with --device cuda their Part 1 "
          "code-blocks share the GPU (--device-slots, --device-rounds). The files are the same whatever K",
          "3", [](Settings& s, const std::string& v) { return parse_batch_files(v, &s.batch_files); }};
}

// `lanes` copies of `opt` (whose device coder, if any, they share), each
// with a DWT backend and CPU coder of its own.
// With `whole_tiles` and a device coder, each lane also gets a device
// runner of its own (codec/stages/device_tile_stages.h) for the tiles it
// takes whole; a device that does not start leaves the lane without one.
Result<std::vector<codec::EncodeOptions>> encode_lanes(const codec::EncodeOptions& opt, int lanes,
                                                       bool whole_tiles = false);
Result<std::vector<codec::DecodeOptions>> decode_lanes(const codec::DecodeOptions& opt, int lanes);

}  // namespace mallat::tools
