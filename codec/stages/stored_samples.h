// A tile's samples as a file stores them (up to 8 bits in a byte, up to 16
// in two; the precision is SIZ's, Table A.11): the device runner
// (device_tile_stages.h) narrows each plane's int32 samples on the host into
// a buffer of 1 or 2 bytes a sample (or copies them there where the image
// holds them so already, Component::stored), copies that up (a quarter or
// half of the int32 bytes) and widens it on the device. Plain C++, so that CI
// checks the narrowing and the widening rule on the CPU.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/image.h"

namespace mallat::codec {

// stored_bytes(precision), the bytes a sample takes here, is common/image.h's
// rule (Component::stored holds samples the same way).

// Calls f with a null pointer of the type a sample of `bytes` bytes (1, 2,
// else 4) and that signedness is stored as: the one dispatch from a
// component's description to its stored type.
template <typename F>
auto with_stored_type(int bytes, bool is_signed, F&& f) {
  if (bytes == 1) return is_signed ? f(static_cast<int8_t*>(nullptr)) : f(static_cast<uint8_t*>(nullptr));
  if (bytes == 2) return is_signed ? f(static_cast<int16_t*>(nullptr)) : f(static_cast<uint16_t*>(nullptr));
  return f(static_cast<int32_t*>(nullptr));
}

// The rule both sides keep: a sample is stored as the type of its bytes
// and signedness (a plain C++ conversion) and read back through the same
// type widened to int32. Exact for every sample in range of its precision.
template <typename Stored>
inline int32_t widen(Stored v) {
  return static_cast<int32_t>(v);
}

// `rows` rows of `width` samples at `from` (rows `from_pitch` samples
// apart) into `to`, packed, `stored_bytes(precision)` bytes each, as
// `widen` reads them back. False where a sample lies outside the range of
// a `precision`-bit sample (signed or not): a library caller's image may
// hold such samples, which the CPU path codes as they are, so the caller
// then sends the int32 samples instead and `to` is left unused.
bool narrow_rows(const int32_t* from, int64_t from_pitch, int64_t width, int64_t rows, int precision, bool is_signed,
                 std::byte* to);

// The widening on the host, as the device runner's kernel does it: `count`
// stored samples at `from` into `to`.
void widen_on_host(const std::byte* from, int64_t count, int precision, bool is_signed, int32_t* to);

// One row of a binary PNM's raster from `components` planes of one-byte
// stored samples (unsigned, 1 to 8 bits): to[x * components + c] =
// rows[c][x] for x < width. The device runner's samples into a raster
// (DecodeTile::raster), in place of widen_on_host into the components.
void interleave_row(const uint8_t* const* rows, int components, int64_t width, uint8_t* to);

}  // namespace mallat::codec
