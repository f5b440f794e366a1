// Fuzz target: the decoder on raw codestreams (Annex A markers, Tier-2
// packets, Tier-1 code-blocks, the inverse transforms). JP2 input is left to
// jp2_fuzzer so each target explores one layer of the format.
#include "codec/codec.h"
#include "codec/jp2/jp2_boxes.h"
#include "fuzz/decoder_budget.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mallat::codec;
  const std::span<const uint8_t> bytes(data, size);
  if (detect_container(bytes) == Container::kJp2) return 0;
  const auto run = [&](const DecodeOptions& options) { return decode(bytes, options); };
  bool whole = false;
  auto image = mallat::fuzz::decode_within_budget(run, DecodeOptions{}, &whole);
  if (!image.ok() || !whole) return 0;
  // A stream that decodes whole is decoded again the other ways a user asks
  // for part of it: reduced resolution, fewer layers, one tile.
  DecodeOptions part;
  part.reduce = 1;
  part.layers = 1;
  part.tile = 0;
  (void)mallat::fuzz::decode_within_budget(run, part, &whole);
  return 0;
}
