// Transcoding: a JPEG 2000 codestream or JP2/JPH file with its code-blocks
// recoded by the other block coder, Part 1's (EBCOT, 15444-1 Annex D) or
// HT (15444-15), without touching the coefficients: every code-block is
// decoded to its quantisation indices and coded again, so a lossless stream
// stays lossless (every decoded sample equal). Tiles, precincts,
// progression, layers, quantisation and SOP/EPH are kept.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "codec/api/coding_types.h"
#include "common/status.h"

namespace mallat::codec {

// The block coder a transcode writes.
enum class BlockCoder { kPart1, kHt };

struct TranscodeOptions {
  BlockCoder target = BlockCoder::kHt;
  // kCodestream: the codestream alone; kJp2 / kJph: a JP2 file under the
  // 'jp2 ' or 'jph ' brand (15444-15 Annex D), the input's boxes kept when
  // it is one. kUnknown: as the input, a JP2 input's brand following the
  // target coder.
  Container container = Container::kUnknown;
  int threads = 0;  // 0 = all cores
};

// What a transcode kept, changed or could not carry over.
struct TranscodeReport {
  std::vector<std::string> warnings;  // damage in the input (decoded as far as it goes), markers dropped
  int64_t code_blocks = 0;            // code-blocks recoded
  // Of those, the ones whose source passes ended inside a bit-plane (after
  // SigProp or MagRef; lossy streams only), recoded to end at the same
  // pass of the other coder (tile_transcoder.cc says what that rests on).
  int64_t mid_plane_code_blocks = 0;
};

Result<std::vector<uint8_t>> transcode(std::span<const uint8_t> input, const TranscodeOptions& options,
                                       TranscodeReport* report = nullptr);

}  // namespace mallat::codec
