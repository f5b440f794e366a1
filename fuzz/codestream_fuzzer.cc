// Fuzz target: the decoder on raw codestreams (Annex A markers, Tier-2
// packets, Tier-1 code-blocks, the inverse transforms). JP2 input is left to
// jp2_fuzzer so each target explores one layer of the format. A stream that
// decodes whole is decoded again strip by strip (decode_streamed: the
// line-based inverse DWT, the strip writers' path) and the two must agree
// sample for sample: a difference aborts, so the fuzzer keeps the input.
#include <cstdio>
#include <cstdlib>

#include "codec/api/decode_streamed.h"
#include "codec/codec.h"
#include "codec/jp2/jp2_boxes.h"
#include "fuzz/decoder_budget.h"

namespace {

// Puts a streamed decode's strips back together.
class WholeSink final : public mallat::codec::RowSink {
 public:
  mallat::Status begin(const mallat::Image& image) override {
    image_ = image;
    return mallat::Status::Ok();
  }
  mallat::Status rows(mallat::Image strip, int64_t y0) override {
    for (size_t c = 0; c < strip.components.size(); ++c) {
      mallat::Component& to = image_.components[c];
      const mallat::Component& from = strip.components[c];
      if (to.samples.size() < static_cast<size_t>(to.width * to.height)) to.samples.resize(to.width * to.height);
      std::copy(from.samples.begin(), from.samples.end(), to.samples.begin() + y0 * to.width);
    }
    return mallat::Status::Ok();
  }
  const mallat::Image& image() const { return image_; }

 private:
  mallat::Image image_;
};

// The streamed decode of `bytes` with `options` equals `whole`, or it did
// not apply (false) or failed: nothing to compare.
void check_streamed(std::span<const uint8_t> bytes, mallat::codec::DecodeOptions options, const mallat::Image& whole) {
  options.threads = 1;
  options.max_memory = mallat::fuzz::kDecoderMemoryLimit;
  WholeSink sink;
  auto streamed = mallat::codec::decode_streamed(bytes, options, sink);
  if (!streamed.ok() || !*streamed) return;
  const mallat::Image& got = sink.image();
  bool same = got.components.size() == whole.components.size();
  for (size_t c = 0; same && c < whole.components.size(); ++c) {
    same = got.components[c].width == whole.components[c].width &&
           got.components[c].height == whole.components[c].height &&
           got.components[c].samples == whole.components[c].samples;
  }
  if (!same) {
    std::fprintf(stderr, "decode_streamed differs from decode (component count %zu against %zu)\n",
                 got.components.size(), whole.components.size());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mallat::codec;
  const std::span<const uint8_t> bytes(data, size);
  if (detect_container(bytes) == Container::kJp2) return 0;
  const auto run = [&](const DecodeOptions& options) { return decode(bytes, options); };
  bool whole = false;
  auto image = mallat::fuzz::decode_within_budget(run, DecodeOptions{}, &whole);
  if (!image.ok() || !whole) return 0;
  check_streamed(bytes, DecodeOptions{}, *image);
  // A stream that decodes whole is decoded again the other ways a user asks
  // for part of it: reduced resolution, fewer layers, one tile.
  DecodeOptions part;
  part.reduce = 1;
  part.layers = 1;
  part.tile = 0;
  (void)mallat::fuzz::decode_within_budget(run, part, &whole);
  return 0;
}
