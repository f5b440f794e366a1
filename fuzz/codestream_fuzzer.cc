// Fuzz target: the decoder on raw codestreams (Annex A markers, Tier-2
// packets, Tier-1 code-blocks, the inverse transforms). JP2 input is left to
// jp2_fuzzer so each target explores one layer of the format.
#include "codec/codec.h"
#include "fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mallat::codec;
  const std::span<const uint8_t> bytes(data, size);
  if (detect_container(bytes) == Container::kJp2) return 0;
  DecodeOptions options;
  options.threads = 1;
  options.max_memory = mallat::fuzz::kDecoderMemoryLimit;
  auto image = decode(bytes, options);
  if (!image.ok()) return 0;
  // A stream that decodes whole is decoded again the other ways a user asks
  // for part of it: reduced resolution, fewer layers, one tile.
  options.reduce = 1;
  options.layers = 1;
  options.tile = 0;
  (void)decode(bytes, options);
  return 0;
}
