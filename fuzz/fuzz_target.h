// The libFuzzer entry point every target in fuzz/ defines. With MALLAT_FUZZ
// the targets link libFuzzer's main; otherwise regression_main.cc runs them
// over kept inputs, so a finding stays a test after it is fixed.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace mallat::fuzz {

// Memory a target lets the decoder plan for (codec/codestream/memory_limit.h). Under
// the sanitizers a decode costs about a microsecond per sample: mutated
// 640x480 RGB conformance streams (16 MiB by the estimate) took 1.1-1.8 s
// each and held the decoder targets to about 10 executions a second with
// a 512 MiB limit. Large images run the same code as small ones, so 8 MiB
// (p1_05's 5 MiB fits) keeps the fuzzer on the parsing and coding logic;
// a header that asks for more is refused, as the decoder's own limit would.
inline constexpr uint64_t kDecoderMemoryLimit = 8ull << 20;

// The same for the image readers' samples (io/formats.h): much lower,
// because a PNG or TIFF of a few kilobytes can claim tens of megapixels that
// the library then expands: under the sanitizers one 62 KB PNG of 8000x8000
// took 43 s (libFuzzer's -timeout is 10 s), and such runs grew the process
// past -rss_limit_mb. 4 M samples (a 2048x2048 image) decode in well under
// a second.
inline constexpr uint64_t kImageMemoryLimit = 16ull << 20;

}  // namespace mallat::fuzz
