// The HT refinement passes' decoder (15444-15 Annex C: SigProp, then
// MagRef, for the plane below the cleanup's), the fast way: the same
// samples as decode_refinement_reference (entropy/ht/refinement.cc; the tests hold
// the two together), with significance kept per stripe of 4 rows as one
// nibble per column, so that a sample's 8 neighbours are a few shifts and
// ORs of its own column's and its two neighbours' nibbles rather than 8
// flag look-ups, and a column none of whose samples has a significant
// neighbour is passed over whole.
//
// Significance as SigProp sees it when it reaches a sample (Annex C's scan:
// stripes top to bottom, columns left to right, top to bottom in a column):
// the column to the left and the stripe above as they ended (SigProp's own
// new samples included); the column to the right and the stripe below as
// the cleanup left them (not reached yet); its own column above it as it
// ended, below it as the cleanup left it. In vertically causal mode the
// stripe below counts for no sample.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "entropy/ht/bit_streams.h"
#include "entropy/ht/passes.h"

namespace mallat::entropy::ht {
namespace {

// Per column, one stripe's significance, bit r for the stripe's row r.
// Index x + 1 holds column x: a zero border on each side.
struct StripeColumns {
  std::vector<uint8_t> above;     // the stripe above, as SigProp ended it
  std::vector<uint8_t> current;   // this stripe: the cleanup's, then SigProp's new samples
  std::vector<uint8_t> cleanup;   // this stripe, the cleanup's alone (MagRef's samples)
  std::vector<uint8_t> below;     // the stripe below's first row, the cleanup's
  void reset(int64_t width) {
    const auto n = static_cast<size_t>(width + 2);
    above.assign(n, 0);
    current.assign(n, 0);
    cleanup.assign(n, 0);
    below.assign(n, 0);
  }
};

// Bit k of a column's extended nibble: k = 0 the row above the stripe, k =
// 1..rows the stripe's rows, k = rows + 1 the row below.
inline uint32_t extended(const StripeColumns& s, int64_t i, int rows, uint32_t below_mask) {
  return (s.above[static_cast<size_t>(i)] >> 3 & 1u) | uint32_t{s.current[static_cast<size_t>(i)]} << 1 |
         (s.below[static_cast<size_t>(i)] & below_mask) << (rows + 1);
}

}  // namespace

void decode_refinement(std::span<const uint8_t> segment, int passes, int plane, bool vertical_causal,
                       PlaneView<int32_t> samples) {
  const int64_t width = samples.width, height = samples.height;
  if (width <= 0 || height <= 0) return;
  thread_local StripeColumns s;
  s.reset(width);
  const int32_t one = int32_t{1} << plane;
  ForwardReader sigprop(segment.data(), segment.size(), 0);
  BackwardReader magref(segment.data(), segment.data() + segment.size(), 0, 0, true);
  for (int64_t y0 = 0; y0 < height; y0 += 4) {
    const int rows = static_cast<int>(std::min<int64_t>(4, height - y0));
    const uint32_t row_bits = (1u << rows) - 1;
    // The cleanup's significance: the samples it left non-zero.
    std::fill(s.current.begin(), s.current.end(), 0);
    for (int r = 0; r < rows; ++r) {
      const int32_t* row = samples.row(y0 + r);
      uint8_t* nibbles = s.current.data() + 1;
      for (int64_t x = 0; x < width; ++x) nibbles[x] |= static_cast<uint8_t>((row[x] != 0) << r);
    }
    std::copy(s.current.begin(), s.current.end(), s.cleanup.begin());
    const bool has_below = y0 + 4 < height;
    if (has_below) {
      const int32_t* next = samples.row(y0 + 4);
      for (int64_t x = 0; x < width; ++x) s.below[static_cast<size_t>(x + 1)] = next[x] != 0;
    } else {
      std::fill(s.below.begin(), s.below.end(), 0);
    }
    const uint32_t below_mask = vertical_causal ? 0u : 1u;

    // SigProp, a group of 4 columns at a time; the group's new samples'
    // signs follow it.
    for (int64_t x0 = 0; x0 < width; x0 += 4) {
      const int64_t x1 = std::min(x0 + 4, width);
      uint32_t newly[4] = {0, 0, 0, 0};
      bool any_new = false;
      for (int64_t x = x0; x < x1; ++x) {
        const int64_t i = x + 1;
        uint32_t side = extended(s, i - 1, rows, below_mask) | extended(s, i + 1, rows, below_mask);
        side |= side << 1 | side >> 1;  // each row's rows above and below in the side columns
        uint32_t own = extended(s, i, rows, below_mask);
        const uint32_t cleanup = s.current[static_cast<size_t>(i)];
        uint32_t significant = cleanup;
        // A sample can become significant only once it has a significant
        // neighbour; with none in the column the column is done.
        if ((((side | own << 1 | own >> 1) >> 1) & ~significant & row_bits) == 0) continue;
        // Top to bottom, each candidate (not significant, a significant
        // neighbour, a new one above it counting) takes a bit; without
        // branches on the bits, which are the data's and unpredictable. A
        // column takes at most 4 of look()'s 32.
        const uint64_t bits = sigprop.look();
        int used = 0;
        for (int r = 0; r < 4; ++r) {
          const uint32_t candidate =
              (~significant & row_bits) >> r & (side >> (r + 1) | own >> r | own >> (r + 2)) & 1u;
          const auto bit = static_cast<uint32_t>(bits >> used) & candidate;
          used += static_cast<int>(candidate);
          significant |= bit << r;
          own |= bit << (r + 1);
        }
        sigprop.advance(used);
        s.current[static_cast<size_t>(i)] = static_cast<uint8_t>(significant);
        newly[x - x0] = significant & ~cleanup;
        any_new |= significant != cleanup;
      }
      if (!any_new) continue;
      for (int64_t x = x0; x < x1; ++x) {
        const uint32_t n = newly[x - x0];
        if (n == 0) continue;
        const uint64_t signs = sigprop.look();
        int taken = 0;
        for (uint32_t left = n; left != 0; left &= left - 1, ++taken) {
          samples.row(y0 + std::countr_zero(left))[x] = (signs >> taken & 1) != 0 ? -one : one;
        }
        sigprop.advance(taken);
      }
    }

    // MagRef: each sample the cleanup found significant, its bit at the
    // plane, in the same scan order (a stream of its own).
    if (passes >= 2) {
      for (int64_t x = 0; x < width; ++x) {
        const uint32_t c = s.cleanup[static_cast<size_t>(x + 1)];
        if (c == 0) continue;
        const uint64_t bits = magref.look();
        int taken = 0;
        for (uint32_t left = c; left != 0; left &= left - 1, ++taken) {
          // v + one for a positive v, v - one for a negative, without a
          // branch on the bit.
          int32_t& v = samples.row(y0 + std::countr_zero(left))[x];
          const int32_t add = static_cast<int32_t>(bits >> taken & 1) << plane;
          const int32_t negative = v >> 31;  // 0 or -1
          v += (add ^ negative) - negative;
        }
        magref.advance(taken);
      }
    }
    std::swap(s.above, s.current);
  }
}

}  // namespace mallat::entropy::ht
