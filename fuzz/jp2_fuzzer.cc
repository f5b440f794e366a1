// Fuzz target: the decoder on JP2 files (Annex I boxes: signature, ftyp,
// jp2h with ihdr/colr/pclr/cmap/cdef/res, then the codestream).
#include "codec/codec.h"
#include "fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mallat::codec;
  const std::span<const uint8_t> bytes(data, size);
  if (detect_container(bytes) != Container::kJp2) return 0;
  DecodeOptions options;
  options.threads = 1;
  options.max_memory = mallat::fuzz::kDecoderMemoryLimit;
  (void)decode(bytes, options);
  return 0;
}
