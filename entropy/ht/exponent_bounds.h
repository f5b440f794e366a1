// Exponent bounds lowered at the coded plane: the HT encoder's one
// quantisation choice under a rate target, as one plain source for the CPU
// and the GPU (common/host_device.h). Internal to the HT coder.
//
// In an HT cleanup pass every significant sample of a quad spends U_q - i_n
// MagSgn bits (15444-15 Annex C), U_q the quad's exponent bound, the
// largest exponent E = bit width of 2 mu - 1 of its samples (mu the
// magnitude at the cleanup plane) where it exceeds kappa_q. A quad whose
// largest-exponent samples all sit just above an exponent's first magnitude
// (mu = 2^(E - 2) + 1, or mu = 2 for E = 2: the smallest mu of E) costs one
// bit a significant sample more than the same quad with those samples one
// index lower, for an error that grows with how far above the bin's lower
// edge they lie (a fraction f of the plane's step: 2 f step^2 more, the
// decoder reconstructing at the middle of the bin, 15444-1 E.1.1.2). Under a
// rate target the block's plane was chosen where the step^2 a bit is about a
// fixed share of the target's slope, so the encoder codes such samples one
// index lower (their bits below the plane all ones: top of the lower bin,
// MagRef's bit 1) where their summed 2 f is below that share times the bits
// saved (the quad's significant samples and its u_q's residual). Only the
// values coded change: every decoder reads the stream as any other.
//
// The choice is the block coder's: it alone sees each quad's bound and
// kappa_q (C.3.3), where the bits a sample costs are decided; a dead zone
// moved at the plane, the same for every sample, does not see them.
#pragma once

#include <cstdint>

#include "common/host_device.h"
#include "common/plane_view.h"

namespace mallat::entropy::ht {

// The share, in tenths of a step^2 a bit: twice the summed fraction f of
// the lowered samples must stay below (share / 10) x (significant samples +
// 1). A block coded with SigProp and MagRef below its cleanup keeps less
// (its MagRef point loses too).
inline constexpr int kLoweringShareCleanupAlone = 2;
inline constexpr int kLoweringShareWithRefinement = 1;

// The share a block's plane is coded with unless its coder is given one.
MALLAT_HD constexpr int default_lowering_share(bool refinement) {
  return refinement ? kLoweringShareWithRefinement : kLoweringShareCleanupAlone;
}

// A block's lowered samples: bit (y * width + x) of `bits` for sample (x, y).
// 4096 samples at most (A.6.1).
struct LoweredSamples {
  static constexpr int kWords = 4096 / 32;
  uint32_t bits[kWords];
};

MALLAT_HD inline bool is_lowered(const LoweredSamples& l, int64_t width, int64_t x, int64_t y) {
  const int64_t i = y * width + x;
  return (l.bits[i >> 5] >> (i & 31) & 1u) != 0;
}

// The magnitude a lowered sample is coded as: one index lower at `shift`
// (the cleanup's plane plus the fraction bits), every bit below it one.
MALLAT_HD inline uint32_t lowered_magnitude(uint32_t m, int shift) { return (m >> shift << shift) - 1u; }

// What lowering changes in the passes' distortion decreases, in the
// coefficients' units squared: the cleanup's against the decrease of the
// plain values (ht_cleanup_decrease), MagRef's against the decrease of the
// values coded (SigProp's is the same: a lowered sample stays significant).
struct LoweringEffect {
  bool any = false;
  double cleanup = 0;
  double magref = 0;
};

namespace detail {

MALLAT_HD inline uint32_t lowering_magnitude(int32_t v) {
  return v < 0 ? 0u - static_cast<uint32_t>(v) : static_cast<uint32_t>(v);
}

// E for mu (0 for an insignificant sample), as the cleanup encoder's.
MALLAT_HD inline int lowering_exponent(uint32_t mu) {
  if (mu == 0) return 0;
#if defined(__CUDA_ARCH__)
  return 32 - __clz(static_cast<int>(2 * mu - 1));
#else
  return 32 - __builtin_clz(2 * mu - 1);
#endif
}

// Whether a quad whose largest magnitude at the plane is `largest` may be
// lowered: the first magnitude of its exponent (2, 3, 5, 9, ...: largest - 1
// a power of two).
MALLAT_HD inline bool lowering_candidate(uint32_t largest) {
  return largest >= 2 && ((largest - 1) & (largest - 2)) == 0;
}

// The quad at (x0, y0), of `rows` x `cols` samples, whose largest index at
// the plane is `largest`, lowered: its samples at `largest` marked in
// `out`, their effect added (in the quad's order: rows, then columns).
MALLAT_HD inline void commit_quad(PlaneView<const int32_t> c, int shift, bool refinement, int64_t x0, int64_t y0,
                                  int64_t rows, int64_t cols, uint32_t largest, LoweredSamples& out,
                                  LoweringEffect& effect) {
  const int64_t w = c.width;
  const int64_t step = int64_t{1} << shift, quarter = shift >= 2 ? step >> 2 : 0;
  for (int64_t y = y0; y < y0 + rows; ++y) {
    for (int64_t x = x0; x < x0 + cols; ++x) {
      const uint32_t m = lowering_magnitude(c.row(y)[x]);
      if ((m >> shift) != largest) continue;
      const int64_t i = y * w + x;
      out.bits[i >> 5] |= 1u << (i & 31);
      effect.any = true;
      // Reconstruction one step lower: the error grows by 2 step r, r the
      // distance above the bin's edge (E.1.1.2, mid-point).
      const int64_t r = static_cast<int64_t>(m - (largest << shift));
      effect.cleanup -= static_cast<double>(2 * step * r);
      // MagRef against the coded value m' = edge - 1: (R1 - R0) 2 (m - m'),
      // R0 and R1 m''s reconstructions before and after MagRef (R1 - R0 =
      // step / 4 as m''s MagRef bit is one).
      if (refinement) effect.magref += static_cast<double>(quarter * 2 * (r + 1));
    }
  }
}

// The quad at (x0, y0), of `rows` x `cols` samples, whose largest magnitude
// at the plane is `largest` (a lowering_candidate): its samples at `largest`
// marked in `out` and their effect added where the rule says (the file's
// comment); kappa_q from the row above as `out` has it.
MALLAT_HD inline void lower_quad(PlaneView<const int32_t> c, int shift, bool refinement, uint64_t share, int64_t x0,
                                 int64_t y0, int64_t rows, int64_t cols, uint32_t largest, LoweredSamples& out,
                                 LoweringEffect& effect) {
  const int64_t w = c.width;
  int significant = 0;
  uint64_t above = 0;  // the summed distance above the bin's lower edge
  for (int64_t y = y0; y < y0 + rows; ++y) {
    for (int64_t x = x0; x < x0 + cols; ++x) {
      const uint32_t m = lowering_magnitude(c.row(y)[x]);
      significant += (m >> shift) != 0 ? 1 : 0;
      if ((m >> shift) == largest) above += m - (largest << shift);
    }
  }
  if (20 * above >= share * static_cast<uint64_t>(significant + 1) << shift) return;
  // kappa_q (C.3.3): 1 for a quad of one significant sample or in the
  // first row pair, else the largest exponent of the four samples above
  // columns x0 - 1 .. x0 + 2 (as coded), less one, at least 1.
  int kappa = 1;
  if (significant > 1 && y0 > 0) {
    int e_above = 0;
    for (int64_t x = x0 - 1; x <= x0 + 2; ++x) {
      if (x < 0 || x >= w) continue;
      const uint32_t mu = lowering_magnitude(c.row(y0 - 1)[x]) >> shift;
      const int e = lowering_exponent(is_lowered(out, w, x, y0 - 1) ? mu - 1 : mu);
      e_above = e > e_above ? e : e_above;
    }
    kappa = e_above > 2 ? e_above - 1 : 1;
  }
  // Only a bound above kappa_q comes down with the samples.
  if (lowering_exponent(largest) <= kappa) return;
  commit_quad(c, shift, refinement, x0, y0, rows, cols, largest, out, effect);
}

}  // namespace detail

// Chooses `c`'s lowered samples for a cleanup at `shift` (>= 1; >= 2 with
// `refinement`: a plane with fraction bits below it), quad by quad in the
// cleanup's order; `refinement`: SigProp and MagRef follow; `share` in
// tenths of a step^2 a bit (above). Writes `out` (every word) and returns
// the passes' distortion changes. The plain form: the CPU's
// lower_exponent_bounds_cpu (entropy/ht/passes.h) tests the quads in
// vector lanes as it writes the values coded, and is tested against it.
MALLAT_HD inline LoweringEffect lower_exponent_bounds(PlaneView<const int32_t> c, int shift, bool refinement,
                                                      int share, LoweredSamples& out) {
  LoweringEffect effect;
  for (int i = 0; i < LoweredSamples::kWords; ++i) out.bits[i] = 0;
  const int64_t w = c.width, h = c.height;
  for (int64_t y0 = 0; y0 < h; y0 += 2) {
    const int64_t rows = h - y0 < 2 ? h - y0 : 2;
    for (int64_t x0 = 0; x0 < w; x0 += 2) {
      const int64_t cols = w - x0 < 2 ? w - x0 : 2;
      uint32_t largest = 0;
      for (int64_t y = y0; y < y0 + rows; ++y) {
        for (int64_t x = x0; x < x0 + cols; ++x) {
          const uint32_t mu = detail::lowering_magnitude(c.row(y)[x]) >> shift;
          largest = mu > largest ? mu : largest;
        }
      }
      if (detail::lowering_candidate(largest)) {
        detail::lower_quad(c, shift, refinement, static_cast<uint64_t>(share), x0, y0, rows, cols, largest, out,
                           effect);
      }
    }
  }
  return effect;
}

// The same at the share for `refinement` (default_lowering_share).
MALLAT_HD inline LoweringEffect lower_exponent_bounds(PlaneView<const int32_t> c, int shift, bool refinement,
                                                      LoweredSamples& out) {
  return lower_exponent_bounds(c, shift, refinement, default_lowering_share(refinement), out);
}

}  // namespace mallat::entropy::ht
