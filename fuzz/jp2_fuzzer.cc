// Fuzz target: the decoder on JP2 files (Annex I boxes: signature, ftyp,
// jp2h with ihdr/colr/pclr/cmap/cdef/res, then the codestream), through
// decode_jp2_image, which also applies the palette, channel definitions and
// colour space as `mallat decode` does.
#include "codec/codec.h"
#include "codec/jp2/jp2_colour.h"
#include "fuzz/decoder_budget.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mallat::codec;
  const std::span<const uint8_t> bytes(data, size);
  if (detect_container(bytes) != Container::kJp2) return 0;
  bool whole = false;
  (void)mallat::fuzz::decode_within_budget(
      [&](const DecodeOptions& options) { return decode_jp2_image(bytes, options); }, DecodeOptions{},
      &whole);
  return 0;
}
