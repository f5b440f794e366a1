// The HT refinement passes (15444-15 Annex C: SigProp, then MagRef, for the
// plane below the cleanup's) in both directions, as one plain source for the
// CPU and the GPU (common/host_device.h): the CPU's encode_refinement and
// decode_refinement (entropy/ht/passes.h) are these, and the device's HT
// kernels run them; decode_refinement_reference (entropy/ht/refinement.cc, a
// flag per sample) is what they are tested against.
//
// Significance is kept per stripe of 4 rows as one nibble per column, so that
// a sample's 8 neighbours are a few shifts and ORs of its own column's and its
// two neighbours' nibbles, and a column none of whose samples has a
// significant neighbour is passed over whole. As SigProp sees it when it
// reaches a sample (Annex C's scan: stripes top to bottom, columns left to
// right, top to bottom in a column): the column to the left and the stripe
// above as they ended (SigProp's own new samples included); the column to the
// right and the stripe below as the cleanup left them; its own column above
// it as it ended, below it as the cleanup left it. In vertically causal mode
// the stripe below counts for no sample. After each group of 4 columns of a
// stripe come the signs of the group's newly significant samples; MagRef
// gives every sample the cleanup found significant its bit at the plane, in
// the same scan order, in a stream of its own (backward from the segment's
// end). Internal to the HT coder.
#pragma once

#include <cstdint>

#include "common/host_device.h"
#include "common/plane_view.h"
#include "entropy/ht/bit_streams.h"
#include "entropy/ht/exponent_bounds.h"

namespace mallat::entropy::ht {

// The squared error of a magnitude m known down to plane k, reconstructed
// at the middle of its interval (E.1.1.2): m itself while m >> k is 0.
MALLAT_HD inline double squared_error(uint32_t m, int k) {
  if ((uint64_t{m} >> k) == 0) return static_cast<double>(uint64_t{m} * m);
  const int64_t e = static_cast<int64_t>(m & ((uint64_t{1} << k) - 1)) - (k > 0 ? int64_t{1} << (k - 1) : 0);
  return static_cast<double>(e * e);
}

// What encoding the refinement segment gives besides its bytes.
struct RefinementCoded {
  // The bytes from the segment's start a decoder needs for SigProp alone
  // (never ending in 0xFF).
  uint32_t sigprop_length = 0;
  // Each pass's decrease of squared error in the coefficients' units.
  double sigprop_decrease = 0.0, magref_decrease = 0.0;
};

// Working state: per column (index x + 1, a zero border each side) one
// stripe's significance, bit r for the stripe's row r; and the MagRef
// stream's bytes while encoding (at most a bit per sample, with stuffing).
struct RefinementState {
  static constexpr int kColumns = 1024 + 2;
  static constexpr uint32_t kMagRefCapacity = 4096 / 7 + 8;
  uint8_t above[kColumns];    // the stripe above, as SigProp ended it
  uint8_t current[kColumns];  // this stripe: the cleanup's, then SigProp's new samples
  uint8_t cleanup[kColumns];  // this stripe, the cleanup's alone (MagRef's samples)
  uint8_t below[kColumns];    // the stripe below's first row, the cleanup's
  uint8_t magref[kMagRefCapacity];
};

// The most bytes a refinement segment of `samples` samples takes: SigProp
// two bits a sample (its bit and a sign), MagRef one, each byte possibly
// carrying 7, and the joint byte.
MALLAT_HD constexpr uint32_t refinement_capacity(uint32_t samples) { return (3 * samples + 6) / 7 + 4; }

namespace detail {

MALLAT_HD inline int lowest_set(uint32_t v) {
#if defined(__CUDA_ARCH__)
  return __ffs(static_cast<int>(v)) - 1;
#else
  return __builtin_ctz(v);
#endif
}

MALLAT_HD inline uint32_t magnitude_of(int32_t v) {
  return v < 0 ? 0u - static_cast<uint32_t>(v) : static_cast<uint32_t>(v);
}

// Bit k of a column's extended nibble: k = 0 the row above the stripe, k =
// 1..rows the stripe's rows, k = rows + 1 the row below.
MALLAT_HD inline uint32_t extended(const RefinementState& s, int i, int rows, uint32_t below_mask) {
  return (s.above[i] >> 3 & 1u) | uint32_t{s.current[i]} << 1 | (s.below[i] & below_mask) << (rows + 1);
}

// One stripe's significance from `significant_at(x, y)` (the cleanup's):
// current, cleanup and below.
template <class Significant>
MALLAT_HD inline void load_stripe(RefinementState& s, int width, int height, int y0, int rows,
                                  Significant&& significant_at) {
  for (int x = 0; x < width; ++x) {
    uint32_t nibble = 0;
    for (int r = 0; r < rows; ++r) nibble |= static_cast<uint32_t>(significant_at(x, y0 + r)) << r;
    s.current[x + 1] = static_cast<uint8_t>(nibble);
    s.cleanup[x + 1] = static_cast<uint8_t>(nibble);
    s.below[x + 1] = y0 + 4 < height ? static_cast<uint8_t>(significant_at(x, y0 + 4)) : 0;
  }
}

// SigProp over one stripe: for each candidate (not significant, a
// significant neighbour, a new one above it counting), top to bottom in each
// column, `decide(x, r)` gives its bit (reading or writing it); after each
// group of 4 columns `signs(x, newly)` takes the group's columns' newly
// significant rows.
template <class Decide, class Signs>
MALLAT_HD inline void sigprop_stripe(RefinementState& s, int width, int rows, bool vertical_causal, Decide&& decide,
                                     Signs&& signs) {
  const uint32_t row_bits = (1u << rows) - 1;
  const uint32_t below_mask = vertical_causal ? 0u : 1u;
  for (int x0 = 0; x0 < width; x0 += 4) {
    const int x1 = x0 + 4 < width ? x0 + 4 : width;
    uint32_t newly[4] = {0, 0, 0, 0};
    bool any_new = false;
    for (int x = x0; x < x1; ++x) {
      const int i = x + 1;
      uint32_t side = extended(s, i - 1, rows, below_mask) | extended(s, i + 1, rows, below_mask);
      side |= side << 1 | side >> 1;  // each row's rows above and below in the side columns
      uint32_t own = extended(s, i, rows, below_mask);
      const uint32_t cleanup = s.current[i];
      uint32_t significant = cleanup;
      // A sample can become significant only once it has a significant
      // neighbour; with none in the column the column is done.
      if ((((side | own << 1 | own >> 1) >> 1) & ~significant & row_bits) == 0) continue;
      for (int r = 0; r < rows; ++r) {
        const uint32_t candidate =
            (~significant & row_bits) >> r & (side >> (r + 1) | own >> r | own >> (r + 2)) & 1u;
        if (candidate == 0) continue;
        const uint32_t bit = decide(x, r) ? 1u : 0u;
        significant |= bit << r;
        own |= bit << (r + 1);
      }
      s.current[i] = static_cast<uint8_t>(significant);
      newly[x - x0] = significant & ~cleanup;
      any_new |= significant != cleanup;
    }
    if (!any_new) continue;
    for (int x = x0; x < x1; ++x) {
      if (newly[x - x0] != 0) signs(x, newly[x - x0]);
    }
  }
}

MALLAT_HD inline void next_stripe(RefinementState& s, int width) {
  for (int i = 0; i < width + 2; ++i) s.above[i] = s.current[i];
}

MALLAT_HD inline void clear_borders(RefinementState& s, int width) {
  s.current[0] = s.cleanup[0] = s.below[0] = 0;
  s.current[width + 1] = s.cleanup[width + 1] = s.below[width + 1] = 0;
  for (int i = 0; i < width + 2; ++i) s.above[i] = 0;
}

}  // namespace detail

// Applies `passes` (1: SigProp, 2: SigProp and MagRef) of a refinement
// segment of `length` bytes at plane `plane` to a block the cleanup decoded
// (its non-zero samples are the significant ones).
MALLAT_HD inline void decode_refinement_shared(const uint8_t* segment, uint32_t length, int passes, int plane,
                                               bool vertical_causal, PlaneView<int32_t> samples,
                                               RefinementState& s) {
  const int width = static_cast<int>(samples.width), height = static_cast<int>(samples.height);
  if (width <= 0 || height <= 0) return;
  detail::clear_borders(s, width);
  const int32_t one = int32_t{1} << plane;
  ForwardReader sigprop(segment, length, 0);
  BackwardReader magref(segment, segment + length, 0, 0, true);
  for (int y0 = 0; y0 < height; y0 += 4) {
    const int rows = height - y0 < 4 ? height - y0 : 4;
    detail::load_stripe(s, width, height, y0, rows, [&](int x, int y) { return samples.row(y)[x] != 0; });
    detail::sigprop_stripe(
        s, width, rows, vertical_causal, [&](int, int) { return sigprop.read(1) != 0; },
        [&](int x, uint32_t newly) {
          for (uint32_t left = newly; left != 0; left &= left - 1) {
            samples.row(y0 + detail::lowest_set(left))[x] = sigprop.read(1) != 0 ? -one : one;
          }
        });
    if (passes >= 2) {
      for (int x = 0; x < width; ++x) {
        for (uint32_t left = s.cleanup[x + 1]; left != 0; left &= left - 1) {
          int32_t& v = samples.row(y0 + detail::lowest_set(left))[x];
          // v + one for a positive v, v - one for a negative, without a
          // branch on the bit.
          const int32_t add = static_cast<int32_t>(magref.read(1)) << plane;
          const int32_t negative = v >> 31;  // 0 or -1
          v += (add ^ negative) - negative;
        }
      }
    }
    detail::next_stripe(s, width);
  }
}

// The refinement segment's joint termination: SigProp's and MagRef's last
// bytes meet; fused into one when the bits each needs agree (a stuffed 0
// after a SigProp 0xFF included), else written one each. Returns the bytes a
// decoder needs for SigProp alone; MagRef's bytes follow (the caller's).
template <class SigProp, class MagRef, class Out>
MALLAT_HD inline uint32_t terminate_refinement(SigProp& sigprop, MagRef& magref, Out& segment) {
  const int sp_bits = sigprop.pending_bits();
  const uint8_t sp_last = sigprop.pending();
  const auto sp_mask =
      static_cast<uint8_t>((sp_bits > 0 ? 0xFF >> (8 - sp_bits) : 0) | (sigprop.after_ff() ? 0x80 : 0));
  const auto sigprop_length = static_cast<uint32_t>(segment.size() + (sp_mask != 0 ? 1 : 0));
  const int mr_bits = magref.pending_bits();
  const uint8_t mr_last = magref.pending();
  const auto mr_mask = static_cast<uint8_t>(mr_bits > 0 ? 0xFF >> (8 - mr_bits) : 0);
  if ((sp_mask | mr_mask) != 0) {
    const auto fuse = static_cast<uint8_t>(sp_last | mr_last);
    if ((((fuse ^ sp_last) & sp_mask) | ((fuse ^ mr_last) & mr_mask)) == 0) {
      segment.push_back(fuse);
    } else {
      segment.push_back(sp_last);
      magref.flush();
    }
  }
  return sigprop_length;
}

// Encodes the refinement segment for plane `shift` of `coefficients` (the
// cleanup having coded the planes above it) into `segment`, which the caller
// checks for overflow. The samples `lowered` names (if any) were coded one
// index lower by the cleanup: MagRef codes their lowered magnitude
// (entropy/ht/exponent_bounds.h), and measures its decrease on it.
MALLAT_HD inline RefinementCoded encode_refinement_shared(PlaneView<const int32_t> coefficients, int shift,
                                                          bool vertical_causal, BoundedBytes& segment,
                                                          RefinementState& s,
                                                          const LoweredSamples* lowered = nullptr) {
  RefinementCoded coded;
  const int width = static_cast<int>(coefficients.width), height = static_cast<int>(coefficients.height);
  BoundedBytes magref_bytes(s.magref, RefinementState::kMagRefCapacity);
  BasicForwardWriter<BoundedBytes> sigprop(segment);
  BasicBackwardWriter<BoundedBytes> magref(magref_bytes, 0, 0);
  detail::clear_borders(s, width);
  for (int y0 = 0; y0 < height; y0 += 4) {
    const int rows = height - y0 < 4 ? height - y0 : 4;
    detail::load_stripe(s, width, height, y0, rows, [&](int x, int y) {
      return (detail::magnitude_of(coefficients.row(y)[x]) >> (shift + 1)) != 0;
    });
    detail::sigprop_stripe(
        s, width, rows, vertical_causal,
        [&](int x, int r) {
          const uint32_t m = detail::magnitude_of(coefficients.row(y0 + r)[x]);
          const uint32_t bit = m >> shift & 1;
          sigprop.put(bit, 1);
          if (bit) coded.sigprop_decrease += squared_error(m, shift + 1) - squared_error(m, shift);
          return bit != 0;
        },
        [&](int x, uint32_t newly) {
          for (uint32_t left = newly; left != 0; left &= left - 1) {
            sigprop.put(coefficients.row(y0 + detail::lowest_set(left))[x] < 0 ? 1 : 0, 1);
          }
        });
    for (int x = 0; x < width; ++x) {
      for (uint32_t left = s.cleanup[x + 1]; left != 0; left &= left - 1) {
        const int y = y0 + detail::lowest_set(left);
        uint32_t m = detail::magnitude_of(coefficients.row(y)[x]);
        if (lowered && is_lowered(*lowered, width, x, y)) m = lowered_magnitude(m, shift + 1);
        magref.put(m >> shift & 1, 1);
        coded.magref_decrease += squared_error(m, shift + 1) - squared_error(m, shift);
      }
    }
    detail::next_stripe(s, width);
  }

  coded.sigprop_length = terminate_refinement(sigprop, magref, segment);
  for (uint32_t i = magref_bytes.size(); i > 0; --i) segment.push_back(magref_bytes.data()[i - 1]);
  if (magref_bytes.overflow()) segment.fail();
  return coded;
}

}  // namespace mallat::entropy::ht
