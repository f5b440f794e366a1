// Raw (bypass) coding of the selective arithmetic coding bypass mode
// (D.6, Table D.9): bits are packed most significant first, and after a 0xFF
// byte the next byte carries only 7 bits (a 0 is stuffed in its top bit), so
// no marker code can appear inside the segment.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mallat::entropy {

struct RawEncoder {
  uint8_t* out = nullptr;    // next byte to write
  uint8_t* start = nullptr;  // first byte of the segment
  uint32_t t = 0;            // bits gathered for the byte being built
  int ct = 8;                // bits still free in that byte

  void init(uint8_t* segment_start) {
    out = start = segment_start;
    t = 0;
    ct = 8;
  }

  inline void encode(uint32_t bit) {
    --ct;
    t |= bit << ct;
    if (ct == 0) {
      *out++ = static_cast<uint8_t>(t);
      ct = t == 0xFF ? 7 : 8;
      t = 0;
    }
  }

  // Bytes a decoder needs for the bits coded so far.
  uint32_t length_so_far() const {
    const int capacity = out > start && out[-1] == 0xFF ? 7 : 8;
    return static_cast<uint32_t>(out - start) + (ct < capacity ? 1u : 0u);
  }

  // Terminate the raw segment: pad a partial byte with alternating 0 and 1
  // bits (D.4.2 asks for that pattern under ERTERM; it is harmless
  // otherwise) and drop a final 0xFF, which the decoder supplies anyway.
  uint32_t flush() {
    const int capacity = out > start && out[-1] == 0xFF ? 7 : 8;
    if (ct < capacity) {
      uint32_t pad = 0;
      for (const uint8_t* before = out; out == before; pad ^= 1) encode(pad);
    }
    if (out > start && out[-1] == 0xFF) --out;
    return static_cast<uint32_t>(out - start);
  }
};

struct RawDecoder {
  const uint8_t* bp = nullptr;
  const uint8_t* end = nullptr;
  uint32_t c = 0;  // the byte being read
  int ct = 0;      // bits of it not yet read

  void init(const uint8_t* data, size_t size) {
    bp = data;
    end = data + size;
    c = 0;
    ct = 0;
  }

  inline uint32_t decode() {
    if (ct == 0) {
      // After 0xFF only 7 bits follow; past the end, read 0xFF bytes.
      const bool stuffed = c == 0xFF;
      c = bp < end ? *bp++ : 0xFF;
      ct = stuffed ? 7 : 8;
    }
    --ct;
    return (c >> ct) & 1;
  }
};

}  // namespace mallat::entropy
