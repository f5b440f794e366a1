// Packing and unpacking rows of samples of any width 1..32 bits, most
// significant bit first, as PNG, TIFF, PNM and PGX (ML) store them: an 8-bit
// sample is one byte, a 16-bit one is big-endian, a 12-bit pair fills 3 bytes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mallat::io {

// Bytes that `count` samples of `bits` each occupy, the last byte padded.
inline uint64_t packed_bytes(uint64_t count, int bits) {
  return (count * static_cast<uint64_t>(bits) + 7) / 8;
}

// Reads `count` unsigned samples from `src` into out[0], out[step], ...
// `src` must hold packed_bytes(count, bits) bytes.
void unpack_msb_first(const uint8_t* src, int bits, int64_t count, int32_t* out, int64_t step = 1);

// Writes the low `bits` bits of in[0], in[step], ... into `dst`, which must
// hold packed_bytes(count, bits) bytes; the padding bits of the last byte are 0.
void pack_msb_first(const int32_t* in, int64_t step, int bits, int64_t count, uint8_t* dst);

// Little-endian and big-endian loads/stores of fixed-width fields in headers.
inline uint32_t load_le16(const uint8_t* p) { return p[0] | (p[1] << 8); }
inline uint32_t load_le32(const uint8_t* p) {
  return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<uint32_t>(p[3]) << 24);
}
inline void store_le16(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}
inline void store_le32(uint8_t* p, uint32_t v) {
  store_le16(p, v);
  store_le16(p + 2, v >> 16);
}

}  // namespace mallat::io
