// The libFuzzer entry point every target in fuzz/ defines. With MALLAT_FUZZ
// the targets link libFuzzer's main; otherwise regression_main.cc runs them
// over kept inputs, so a finding stays a test after it is fixed.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace mallat::fuzz {

// Memory a target lets the decoder plan for: well below libFuzzer's default
// -rss_limit_mb of 2048, so a header that asks for more is refused by the
// decoder's own limit instead of ending the run as an out-of-memory report.
inline constexpr uint64_t kDecoderMemoryLimit = 512ull << 20;

// The same for the image readers' samples (io/formats.h): lower, because a
// 16 KB TIFF can claim a few hundred megapixels that libtiff then expands,
// which under the sanitizers takes longer than libFuzzer's -timeout.
inline constexpr uint64_t kImageMemoryLimit = 256ull << 20;

}  // namespace mallat::fuzz
