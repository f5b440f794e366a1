// A streamed decode's sink (codec/api/decode_streamed.h) for tests that
// compare its image with another decode's: the strips joined into one image.
#pragma once

#include <cstdint>
#include <vector>

#include "codec/api/decode_streamed.h"
#include "common/image.h"

namespace mallat::codec {

class JoinedStrips final : public RowSink {
 public:
  Status begin(const Image& header) override {
    image = header;
    return Status::Ok();
  }
  Status rows(Image strip, int64_t) override {
    for (size_t c = 0; c < strip.components.size(); ++c) {
      const std::vector<int32_t>& s = strip.components[c].samples;
      image.components[c].samples.insert(image.components[c].samples.end(), s.begin(), s.end());
    }
    return Status::Ok();
  }
  Image image;
};

}  // namespace mallat::codec
