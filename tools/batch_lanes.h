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
// threads, 32 copies of the 3840x2048 mosaic, lossless, median wall s of 3
// (entropy/cuda/NOTES.md, "Files at once"): K = 1, 2, 4: encode cpu 4.58,
// 4.00, 3.94; cuda 2.95, 2.70, 2.89; decode cpu 3.96, 3.88, 3.70; cuda 2.54,
// 2.53, 2.40. 2 takes most of the gain with two images in memory, not four.
inline constexpr int kDefaultBatchFiles = 2;

// Parses --batch-files' value: a whole number from 1 to 16.
Status parse_batch_files(const std::string& value, int* files);

// --batch-files K, for encode's and decode's tables (Settings::batch_files).
template <typename Settings>
Option<Settings> batch_files_row() {
  return {{"--batch-files"}, "K",
          "a batch codes K files at once, each with -threads threads; with --device cuda their Part 1 code-blocks "
          "share the GPU's launches. The files are the same whatever K",
          "2", [](Settings& s, const std::string& v) { return parse_batch_files(v, &s.batch_files); }};
}

// `lanes` copies of `opt` (whose device coder, if any, they share), each
// with a DWT backend and CPU coder of its own.
Result<std::vector<codec::EncodeOptions>> encode_lanes(const codec::EncodeOptions& opt, int lanes);
Result<std::vector<codec::DecodeOptions>> decode_lanes(const codec::DecodeOptions& opt, int lanes);

}  // namespace mallat::tools
