// An image's int32 samples at their stored width (Component::stored), as a
// batch read for the device gives them: for the tests that check that
// either form encodes to the same bytes.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "common/image.h"

namespace mallat::testing {

// `image` (samples in range of their precision, at most 16 bits; signed
// ones as two's complement) with
// every component's samples at their stored width and `samples` empty.
inline Image as_stored(const Image& image) {
  Image out = image;
  for (Component& c : out.components) {
    const size_t bytes = static_cast<size_t>(stored_bytes(c.precision));
    c.stored.resize(c.samples.size() * bytes);
    for (size_t i = 0; i < c.samples.size(); ++i) {
      if (bytes == 1) {
        const uint8_t v = static_cast<uint8_t>(c.samples[i]);
        c.stored[i] = v;
      } else {
        const uint16_t v = static_cast<uint16_t>(c.samples[i]);
        std::memcpy(c.stored.data() + 2 * i, &v, 2);
      }
    }
    std::vector<int32_t>().swap(c.samples);
  }
  return out;
}

}  // namespace mallat::testing
