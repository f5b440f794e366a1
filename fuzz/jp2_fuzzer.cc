// Fuzz target: the decoder on JP2 files (Annex I boxes: signature, ftyp,
// jp2h with ihdr/colr/pclr/cmap/cdef/res, then the codestream), through
// decode, which also applies the palette, channel definitions and colour
// space (DecodeOptions::apply_jp2_header) as `mallat decode` does.
#include "codec/codec.h"
#include "codec/jp2/jp2_boxes.h"
#include "fuzz/decoder_budget.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mallat::codec;
  const std::span<const uint8_t> bytes(data, size);
  if (detect_container(bytes) != Container::kJp2) return 0;
  bool whole = false;
  DecodeOptions options;
  options.apply_jp2_header = true;  // the default; the Annex I handling is what this target is for
  (void)mallat::fuzz::decode_within_budget(
      [&](const DecodeOptions& o) { return decode(bytes, o); }, options, &whole);
  return 0;
}
