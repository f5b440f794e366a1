// How the decoder fuzz targets spend their time (fuzz_target.h explains the
// limit): a stream within kDecoderMemoryLimit is decoded whole; one refused
// for needing more is decoded again two resolution levels down (a sixteenth
// of the samples), so that the large conformance seeds still drive Tier-2,
// the lower resolutions' Tier-1 and the transforms at a bearable speed.
#pragma once

#include <utility>

#include "codec/codec.h"
#include "common/status.h"
#include "fuzz/fuzz_target.h"

namespace mallat::fuzz {

// `decode(options)` returns a Result<Image>. Sets `whole` to whether the
// full-resolution decode was the one that ran.
template <typename Decode>
auto decode_within_budget(Decode&& decode, codec::DecodeOptions options, bool* whole) {
  options.threads = 1;
  options.max_memory = kDecoderMemoryLimit;
  auto image = decode(options);
  *whole = true;
  if (image.ok() || image.status().code() != ErrorCode::kResourceLimit) return image;
  *whole = false;
  options.reduce += 2;
  return decode(options);
}

}  // namespace mallat::fuzz
