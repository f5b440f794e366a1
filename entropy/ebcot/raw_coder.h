// Raw (bypass) coding of the selective arithmetic coding bypass mode
// (D.6, Table D.9): bits are packed most significant first, and after a 0xFF
// byte the next byte carries only 7 bits (a 0 is stuffed in its top bit), so
// no marker code can appear inside the segment.
#pragma once

#include <cstddef>
#include <cstdint>

#include "entropy/host_device.h"

namespace mallat::entropy {

// kBounded as for BasicMqEncoder (entropy/ebcot/mq_encoder.h): bytes at or past `end` are
// dropped and set `overflow`.
template <bool kBounded>
struct BasicRawEncoder {
  uint8_t* out = nullptr;    // next byte to write
  uint8_t* start = nullptr;  // first byte of the segment
  uint8_t* end = nullptr;    // kBounded: one past the last writable byte
  bool overflow = false;     // kBounded: a byte did not fit before `end`
  uint32_t t = 0;            // bits gathered for the byte being built
  int ct = 8;                // bits still free in that byte

  MALLAT_HD void init(uint8_t* segment_start) {
    out = start = segment_start;
    t = 0;
    ct = 8;
  }

  MALLAT_HD inline void encode(uint32_t bit) {
    --ct;
    t |= bit << ct;
    if (ct == 0) {
      if constexpr (kBounded) {
        if (out >= end) {
          // Dropped: the stuffing rule below still sees the byte's value.
          overflow = true;
          ct = t == 0xFF ? 7 : 8;
          t = 0;
          return;
        }
      }
      *out++ = static_cast<uint8_t>(t);
      ct = t == 0xFF ? 7 : 8;
      t = 0;
    }
  }

  // Bytes a decoder needs for the bits coded so far.
  MALLAT_HD uint32_t length_so_far() const {
    const int capacity = out > start && out[-1] == 0xFF ? 7 : 8;
    return static_cast<uint32_t>(out - start) + (ct < capacity ? 1u : 0u);
  }

  // Terminate the raw segment: pad a partial byte with alternating 0 and 1
  // bits (D.4.2 asks for that pattern under ERTERM; it is harmless
  // otherwise) and drop a final 0xFF, which the decoder supplies anyway.
  MALLAT_HD uint32_t flush() {
    const int capacity = out > start && out[-1] == 0xFF ? 7 : 8;
    if (ct < capacity) {
      uint32_t pad = 0;
      int before = 0;
      do {  // until the byte is complete and CT starts over
        before = ct;
        encode(pad);
        pad ^= 1;
      } while (ct < before);
    }
    if (out > start && out[-1] == 0xFF) --out;
    return static_cast<uint32_t>(out - start);
  }
};

using RawEncoder = BasicRawEncoder<false>;

struct RawDecoder {
  const uint8_t* bp = nullptr;
  const uint8_t* end = nullptr;
  uint32_t c = 0;  // the byte being read
  int ct = 0;      // bits of it not yet read

  MALLAT_HD void init(const uint8_t* data, size_t size) {
    bp = data;
    end = data + size;
    c = 0;
    ct = 0;
  }

  MALLAT_HD inline uint32_t decode() {
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
