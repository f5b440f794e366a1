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

// The same for the image readers' samples (io/formats.h): much lower,
// because a PNG or TIFF of a few kilobytes can claim tens of megapixels that
// the library then expands: under the sanitizers one 62 KB PNG of 8000x8000
// took 43 s (libFuzzer's -timeout is 10 s), and such runs grew the process
// past -rss_limit_mb. 4 M samples (a 2048x2048 image) decode in well under
// a second.
inline constexpr uint64_t kImageMemoryLimit = 16ull << 20;

}  // namespace mallat::fuzz
