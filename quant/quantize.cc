#include "quant/quantize.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace mallat::quant {

QuantizationError quantize_dead_zone(PlaneView<const float> in, double delta, int max_bitplanes,
                                     PlaneView<int32_t> out, int fraction_bits) {
  QuantizationError e;
  const float inverse = static_cast<float>(1.0 / delta);
  const int bits = max_bitplanes < 31 ? max_bitplanes : 31;
  const float ceiling = std::ldexp(1.0f, bits);   // exact: every float below it truncates below 2^bits
  // Scaling by 2^F is exact in floating point, so the index bits of the
  // finer value are exactly floor(|y| / Delta).
  const float fine = std::ldexp(1.0f, fraction_bits);
  const float below_ceiling = std::nextafter(ceiling, 0.0f);
  const int32_t limit = static_cast<int32_t>((int64_t{1} << (bits + fraction_bits)) - 1);
  double total = 0;
  // Code-block rows are at most 1024 wide (A.6.1); wider regions go in pieces.
  constexpr int64_t kPiece = 1024;
  float scaled[kPiece];
  for (int64_t y = 0; y < in.height; ++y) {
    for (int64_t x0 = 0; x0 < in.width; x0 += kPiece) {
      const int64_t n = std::min(kPiece, in.width - x0);
      const float* src = in.row(y) + x0;
      int32_t* dst = out.row(y) + x0;
      // A code-block's rows lie a whole tile row apart, too far for the
      // hardware prefetcher: ask for the row after next while this one runs.
      if (y + 2 < in.height) {
        const float* ahead = in.row(y + 2) + x0;
        for (int64_t x = 0; x < n; x += 16) __builtin_prefetch(ahead + x);
      }
      // Plain loops the compiler vectorises: scale, quantise (|y| / Delta
      // >= 0, so truncation is the floor of E.1.1), sum of squares in
      // eight independent lanes.
      for (int64_t x = 0; x < n; ++x) scaled[x] = std::fabs(src[x]) * inverse;
      // Branch-free, so it vectorises: a coefficient's sign is a coin toss
      // that a branch would mispredict half the time. `over` is all ones
      // where |y| / Delta reached 2^bits (or is NaN): those take the limit.
      int32_t clipped = 0;
      for (int64_t x = 0; x < n; ++x) {
        const int32_t over = -static_cast<int32_t>(!(scaled[x] < ceiling));
        const int32_t m = (static_cast<int32_t>(std::min(below_ceiling, scaled[x]) * fine) & ~over) | (limit & over);
        const int32_t negative = std::bit_cast<int32_t>(src[x]) >> 31;   // the sign bit, spread
        dst[x] = (m ^ negative) - negative;
        clipped -= over;
      }
      e.clipped += clipped;
      float lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      int64_t x = 0;
      for (; x + 8 <= n; x += 8)
        for (int k = 0; k < 8; ++k) lanes[k] += scaled[x + k] * scaled[x + k];
      for (; x < n; ++x) lanes[0] += scaled[x] * scaled[x];
      for (float l : lanes) total += l;
    }
  }
  e.energy = total;
  return e;
}

}  // namespace mallat::quant
