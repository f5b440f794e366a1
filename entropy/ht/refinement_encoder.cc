// The HT refinement passes' encoder (15444-15 Annex C) by columns of a
// stripe: each stripe's significance is a nibble per column (bit r: row r
// of the stripe), so a sample's eight neighbours are shifts and ORs of
// three columns' nibbles and the rows above and below the stripe, and a
// column with no candidate for SigProp (no insignificant sample beside a
// significant one) is passed over whole. The same scan, bits, signs and
// distortions as encode_refinement (entropy/ht/refinement.cc), which is
// its reference.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "entropy/ht/bit_streams.h"
#include "entropy/ht/passes.h"
#include "entropy/ht/refinement_end.h"

namespace mallat::entropy::ht {
namespace {

uint32_t magnitude(int32_t v) { return v < 0 ? 0u - static_cast<uint32_t>(v) : static_cast<uint32_t>(v); }

}  // namespace

RefinementCoded encode_refinement_by_columns(PlaneView<const int32_t> coefficients, int shift,
                                             bool vertical_causal, std::vector<uint8_t>& segment) {
  RefinementCoded coded;
  const int64_t width = coefficients.width, height = coefficients.height;
  const int64_t stripes = (height + 3) / 4;
  const int64_t stride = width + 2;  // a column of zeros each side
  // cleanup[s * stride + x + 1]: the cleanup's significance in stripe s,
  // column x; now[]: the same with SigProp's as it goes.
  thread_local std::vector<uint8_t> cleanup, now;
  cleanup.assign(static_cast<size_t>(stripes * stride), 0);
  for (int64_t y = 0; y < height; ++y) {
    const int32_t* row = coefficients.row(y);
    uint8_t* nibbles = &cleanup[static_cast<size_t>((y / 4) * stride + 1)];
    const int bit = static_cast<int>(y % 4);
    for (int64_t x = 0; x < width; ++x)
      nibbles[x] = static_cast<uint8_t>(nibbles[x] | static_cast<int>((magnitude(row[x]) >> (shift + 1)) != 0) << bit);
  }
  now = cleanup;
  thread_local std::vector<uint8_t> magref_bytes;
  ForwardWriter sigprop(segment);
  BackwardWriter magref(magref_bytes, 0, 0);
  for (int64_t s = 0; s < stripes; ++s) {
    const int64_t y0 = s * 4;
    const int rows = static_cast<int>(std::min<int64_t>(4, height - y0));
    uint8_t* here = &now[static_cast<size_t>(s * stride)];
    const uint8_t* above = s > 0 ? &now[static_cast<size_t>((s - 1) * stride)] : nullptr;
    // The stripe below has not been reached: its cleanup significance. In
    // vertically causal mode the stripe's 4th row does not see it.
    const uint8_t* below = s + 1 < stripes && !vertical_causal ? &cleanup[static_cast<size_t>((s + 1) * stride)] : nullptr;
    // Column i (x + 1) as 6 bits: the row above, the stripe's 4 rows, the
    // row below.
    auto extended = [&](int64_t i) {
      uint32_t e = static_cast<uint32_t>(here[i]) << 1;
      if (above) e |= (above[i] >> 3) & 1u;
      if (below) e |= (below[i] & 1u) << 5;
      return e;
    };
    const uint32_t rows_mask = (1u << rows) - 1;
    int64_t group[16][2];
    int group_size = 0;
    for (int64_t x0 = 0; x0 < width; x0 += 4) {
      const int64_t x1 = std::min(x0 + 4, width);
      for (int64_t x = x0; x < x1; ++x) {
        const int64_t i = x + 1;
        const uint32_t left = extended(i - 1), right = extended(i + 1);
        uint32_t centre = extended(i);
        const uint32_t sides = left | right;
        // Row r (bit r + 1) has a neighbour where bits r..r + 2 of the
        // sides, or bits r and r + 2 of its own column, are set.
        const uint32_t any = sides | centre;
        const uint32_t near = (any | (any >> 1) | (any >> 2)) & 0xF;
        if ((near & ~static_cast<uint32_t>(here[i]) & rows_mask) == 0) continue;
        for (int r = 0; r < rows; ++r) {
          if ((here[i] >> r) & 1u) continue;
          if (((sides >> r) & 7u) == 0 && ((centre >> r) & 5u) == 0) continue;
          const int64_t y = y0 + r;
          const uint32_t m = magnitude(coefficients.row(y)[x]);
          const uint32_t b = m >> shift & 1;
          sigprop.put(b, 1);
          if (!b) continue;
          coded.sigprop_decrease += squared_error(m, shift + 1) - squared_error(m, shift);
          here[i] = static_cast<uint8_t>(here[i] | (1u << r));
          centre |= 1u << (r + 1);
          group[group_size][0] = x;
          group[group_size][1] = y;
          ++group_size;
        }
      }
      for (int k = 0; k < group_size; ++k) sigprop.put(coefficients.row(group[k][1])[group[k][0]] < 0 ? 1 : 0, 1);
      group_size = 0;
    }
  }
  // MagRef: every sample the cleanup found significant, in the same scan.
  for (int64_t s = 0; s < stripes; ++s) {
    const uint8_t* nibbles = &cleanup[static_cast<size_t>(s * stride + 1)];
    for (int64_t x = 0; x < width; ++x) {
      for (uint32_t bits = nibbles[x]; bits != 0; bits &= bits - 1) {
        const int r = __builtin_ctz(bits);
        const uint32_t m = magnitude(coefficients.row(s * 4 + r)[x]);
        magref.put(m >> shift & 1, 1);
        coded.magref_decrease += squared_error(m, shift + 1) - squared_error(m, shift);
      }
    }
  }
  finish_refinement_segment(sigprop, magref, magref_bytes, segment, coded);
  return coded;
}

}  // namespace mallat::entropy::ht
