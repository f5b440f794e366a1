#include "io/bits.h"

namespace mallat::io {

void unpack_msb_first(const uint8_t* src, int bits, int64_t count, int32_t* out, int64_t step) {
  if (bits == 8) {  // the common cases, without the bit loop
    for (int64_t i = 0; i < count; ++i) out[i * step] = src[i];
    return;
  }
  if (bits == 16) {
    for (int64_t i = 0; i < count; ++i) out[i * step] = (src[2 * i] << 8) | src[2 * i + 1];
    return;
  }
  // A 64-bit accumulator always holds the next sample: at most 32 bits are
  // pending when 8 more are shifted in.
  uint64_t acc = 0;
  int have = 0;
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  for (int64_t i = 0; i < count; ++i) {
    while (have < bits) {
      acc = (acc << 8) | *src++;
      have += 8;
    }
    have -= bits;
    out[i * step] = static_cast<int32_t>((acc >> have) & mask);
  }
}

void pack_msb_first(const int32_t* in, int64_t step, int bits, int64_t count, uint8_t* dst) {
  uint64_t acc = 0;
  int have = 0;
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  for (int64_t i = 0; i < count; ++i) {
    acc = (acc << bits) | (static_cast<uint64_t>(static_cast<uint32_t>(in[i * step])) & mask);
    have += bits;
    while (have >= 8) {
      have -= 8;
      *dst++ = static_cast<uint8_t>(acc >> have);
    }
  }
  if (have > 0) *dst = static_cast<uint8_t>(acc << (8 - have));
}

}  // namespace mallat::io
