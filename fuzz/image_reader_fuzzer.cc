// Fuzz target: one of io/'s image readers, chosen at build time by
// MALLAT_FUZZ_READER (decode_png, decode_tiff, decode_pnm, decode_pgx,
// decode_bmp). The readers take the whole file from memory (io/formats.h).
#include "fuzz/fuzz_target.h"
#include "io/formats.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)mallat::io::detail::MALLAT_FUZZ_READER(std::span<const uint8_t>(data, size), mallat::fuzz::kImageMemoryLimit);
  return 0;
}
