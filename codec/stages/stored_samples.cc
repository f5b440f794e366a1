#include "codec/stages/stored_samples.h"

#include <cstring>
#include <type_traits>

namespace mallat::codec {
namespace {

template <typename Stored>
bool narrow_as(const int32_t* from, int64_t from_pitch, int64_t width, int64_t rows, int32_t lo, int32_t hi,
               std::byte* to) {
  Stored* out = reinterpret_cast<Stored*>(to);
  int32_t least = lo, most = hi;
  for (int64_t y = 0; y < rows; ++y) {
    const int32_t* row = from + y * from_pitch;
    for (int64_t x = 0; x < width; ++x) {
      const int32_t v = row[x];
      least = v < least ? v : least;
      most = v > most ? v : most;
      out[y * width + x] = static_cast<Stored>(v);
    }
  }
  return least >= lo && most <= hi;
}

}  // namespace

bool narrow_rows(const int32_t* from, int64_t from_pitch, int64_t width, int64_t rows, int precision, bool is_signed,
                 std::byte* to) {
  const int bits = precision < 1 ? 1 : precision > 31 ? 31 : precision;
  const int32_t lo = is_signed ? -(int32_t{1} << (bits - 1)) : 0;
  const int32_t hi = is_signed ? (int32_t{1} << (bits - 1)) - 1 : static_cast<int32_t>((int64_t{1} << bits) - 1);
  return with_stored_type(stored_bytes(precision), is_signed, [&](auto* type) {
    using Stored = std::remove_pointer_t<decltype(type)>;
    if constexpr (sizeof(Stored) == 4) {
      // 4 bytes hold any int32; the range is the CPU path's concern.
      for (int64_t y = 0; y < rows; ++y)
        std::memcpy(to + y * width * 4, from + y * from_pitch, static_cast<size_t>(width) * 4);
      return true;
    } else {
      return narrow_as<Stored>(from, from_pitch, width, rows, lo, hi, to);
    }
  });
}

void interleave_row(const uint8_t* const* rows, int components, int64_t width, uint8_t* to) {
  if (components == 3) {  // RGB, the common case, with the stride known
    const uint8_t *r = rows[0], *g = rows[1], *b = rows[2];
    for (int64_t x = 0; x < width; ++x) {
      to[3 * x] = r[x];
      to[3 * x + 1] = g[x];
      to[3 * x + 2] = b[x];
    }
    return;
  }
  for (int c = 0; c < components; ++c) {
    const uint8_t* from = rows[c];
    for (int64_t x = 0; x < width; ++x) to[x * components + c] = from[x];
  }
}

void widen_on_host(const std::byte* from, int64_t count, int precision, bool is_signed, int32_t* to) {
  widen_stored_samples(reinterpret_cast<const uint8_t*>(from), count, precision, is_signed, to);
}

}  // namespace mallat::codec
