// The libFuzzer entry point every target in fuzz/ defines. With MALLAT_FUZZ
// the targets link libFuzzer's main; otherwise regression_main.cc runs them
// over kept inputs, so a finding stays a test after it is fixed.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace mallat::fuzz {

// Memory a target lets the decoder plan for (codec/codestream/memory_limit.h).
// Under the sanitizers a decode's cost grows with its samples, and mutated
// streams of whole conformance images would hold the decoder targets to a
// few executions a second. Large images run the same code as small ones, so
// 8 MiB (p1_05's 5 MiB fits) keeps the fuzzer on the parsing and coding
// logic; a header that asks for more is refused, as the decoder's own limit
// would.
inline constexpr uint64_t kDecoderMemoryLimit = 8ull << 20;

// The same for the image readers' samples (io/formats.h): much lower,
// because a PNG or TIFF of a few kilobytes can claim tens of megapixels that
// the library then expands: under the sanitizers such an input runs past
// libFuzzer's -timeout and grows the process past -rss_limit_mb. 4 M samples
// (a 2048x2048 image) stay far inside both.
inline constexpr uint64_t kImageMemoryLimit = 16ull << 20;

}  // namespace mallat::fuzz
