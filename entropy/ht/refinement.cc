// The HT refinement passes (15444-15 Annex C), both directions, the plain
// references the shared coder (entropy/ht/shared_refinement.h, the CPU's and
// the GPU's) is tested against: SigProp and MagRef for the plane below the
// cleanup's, sharing one codeword segment (SigProp forward from its start,
// MagRef backward from its end), with a flag per sample.
//
// Both scan stripes of 4 rows, column by column, top to bottom in a
// column. SigProp visits the samples not yet significant that have a
// significant neighbour among their 8 (in vertically causal mode, none
// from the stripe below), significance counting as it stands when the
// sample is reached: the cleanup's, and SigProp's own earlier in the scan.
// A visited sample gets one bit (its magnitude bit at the plane); after
// each group of 4 columns of a stripe come the signs of the group's newly
// significant samples. MagRef gives every sample the cleanup found
// significant its bit at the plane.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "entropy/ht/bit_streams.h"
#include "entropy/ht/passes.h"

namespace mallat::entropy::ht {
namespace {

constexpr uint8_t kCleanupSignificant = 1;
constexpr uint8_t kNewlySignificant = 2;

// Significance flags with a border of one sample all round.
class Flags {
 public:
  Flags(int64_t width, int64_t height) : stride_(width + 2) {
    flags_.assign(static_cast<size_t>(stride_ * (height + 2)), 0);
  }
  uint8_t& at(int64_t x, int64_t y) { return flags_[static_cast<size_t>((y + 1) * stride_ + x + 1)]; }

  // Whether (x, y) has a significant neighbour; `below` says whether the
  // row below counts.
  bool has_significant_neighbour(int64_t x, int64_t y, bool below) {
    const uint8_t* up = &at(x - 1, y - 1);
    const uint8_t* mid = up + stride_;
    const uint8_t* down = mid + stride_;
    int any = up[0] | up[1] | up[2] | mid[0] | mid[2];
    if (below) any |= down[0] | down[1] | down[2];
    return any != 0;
  }

 private:
  int64_t stride_;
  thread_local static std::vector<uint8_t> flags_;
};
thread_local std::vector<uint8_t> Flags::flags_;

using detail::magnitude_of;

// Calls visit(x, y, last_row) in SigProp's and MagRef's order (last_row:
// the stripe's 4th row), and group_end() after each group of 4 columns of a
// stripe.
template <class Visit, class GroupEnd>
void scan(int64_t width, int64_t height, Visit&& visit, GroupEnd&& group_end) {
  for (int64_t y0 = 0; y0 < height; y0 += 4) {
    const int64_t y1 = std::min(y0 + 4, height);
    for (int64_t x0 = 0; x0 < width; x0 += 4) {
      const int64_t x1 = std::min(x0 + 4, width);
      for (int64_t x = x0; x < x1; ++x) {
        for (int64_t y = y0; y < y1; ++y) visit(x, y, y == y0 + 3);
      }
      group_end();
    }
  }
}

// SigProp over `flags` (the cleanup's significance): significance(x, y)
// codes a visited sample's bit and returns it, sign(x, y) codes the sign of
// one that became significant, after its group.
template <class Significance, class Sign>
void sigprop_pass(Flags& flags, int64_t width, int64_t height, bool vertical_causal, Significance&& significance,
                  Sign&& sign) {
  int64_t group[16][2];
  int group_size = 0;
  scan(
      width, height,
      [&](int64_t x, int64_t y, bool last_row) {
        uint8_t& f = flags.at(x, y);
        // In vertically causal mode the stripe below does not count.
        const bool below = !(last_row && vertical_causal);
        if (f != 0 || !flags.has_significant_neighbour(x, y, below) || !significance(x, y)) return;
        f = kNewlySignificant;
        group[group_size][0] = x;
        group[group_size][1] = y;
        ++group_size;
      },
      [&] {
        for (int i = 0; i < group_size; ++i) sign(group[i][0], group[i][1]);
        group_size = 0;
      });
}

// MagRef: refine(x, y) for each sample the cleanup found significant.
template <class Refine>
void magref_pass(Flags& flags, int64_t width, int64_t height, Refine&& refine) {
  scan(
      width, height,
      [&](int64_t x, int64_t y, bool) {
        if (flags.at(x, y) == kCleanupSignificant) refine(x, y);
      },
      [] {});
}

}  // namespace

RefinementCoded encode_refinement_reference(PlaneView<const int32_t> coefficients, int shift,
                                            bool vertical_causal, std::vector<uint8_t>& segment) {
  RefinementCoded coded;
  const int64_t width = coefficients.width, height = coefficients.height;
  Flags flags(width, height);
  for (int64_t y = 0; y < height; ++y) {
    for (int64_t x = 0; x < width; ++x) {
      if (magnitude_of(coefficients.at(x, y)) >> (shift + 1)) flags.at(x, y) = kCleanupSignificant;
    }
  }
  thread_local std::vector<uint8_t> magref_bytes;
  ForwardWriter sigprop(segment);
  BackwardWriter magref(magref_bytes, 0, 0);
  sigprop_pass(
      flags, width, height, vertical_causal,
      [&](int64_t x, int64_t y) {
        const uint32_t m = magnitude_of(coefficients.at(x, y));
        const uint32_t bit = m >> shift & 1;
        sigprop.put(bit, 1);
        if (bit) coded.sigprop_decrease += squared_error(m, shift + 1) - squared_error(m, shift);
        return bit != 0;
      },
      [&](int64_t x, int64_t y) { sigprop.put(coefficients.at(x, y) < 0 ? 1 : 0, 1); });
  magref_pass(flags, width, height, [&](int64_t x, int64_t y) {
    const uint32_t m = magnitude_of(coefficients.at(x, y));
    magref.put(m >> shift & 1, 1);
    coded.magref_decrease += squared_error(m, shift + 1) - squared_error(m, shift);
  });
  coded.sigprop_length = terminate_refinement(sigprop, magref, segment);
  segment.insert(segment.end(), magref_bytes.rbegin(), magref_bytes.rend());
  return coded;
}

void decode_refinement_reference(std::span<const uint8_t> segment, int passes, int plane, bool vertical_causal,
                                 PlaneView<int32_t> samples) {
  const int64_t width = samples.width, height = samples.height;
  Flags flags(width, height);
  for (int64_t y = 0; y < height; ++y) {
    for (int64_t x = 0; x < width; ++x) {
      if (samples.at(x, y) != 0) flags.at(x, y) = kCleanupSignificant;
    }
  }
  const int32_t one = int32_t{1} << plane;
  ForwardReader sigprop(segment.data(), segment.size(), 0);
  sigprop_pass(
      flags, width, height, vertical_causal, [&](int64_t, int64_t) { return sigprop.read(1) != 0; },
      [&](int64_t x, int64_t y) { samples.at(x, y) = sigprop.read(1) ? -one : one; });
  if (passes < 2) return;
  BackwardReader magref(segment.data(), segment.data() + segment.size(), 0, 0, true);
  magref_pass(flags, width, height, [&](int64_t x, int64_t y) {
    if (!magref.read(1)) return;
    int32_t& v = samples.at(x, y);
    v = v < 0 ? v - one : v + one;
  });
}

}  // namespace mallat::entropy::ht
