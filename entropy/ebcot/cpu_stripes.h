// What the CPU's specialised passes (entropy/ebcot/encoder_passes.h,
// entropy/ebcot/decoder_passes.h) share: the sign context of D.3.2 from
// the column words, the marking of a newly significant sample in its
// neighbours' windows, and the cleanup pass's column tests; and the
// encoder's walks over full stripes and a short last one, with the rows of
// a column as constants, through lambdas (the decoder walks without them,
// so its MQ decoder's address is never kept). A column's own word is held
// in a register by the passes; the neighbours' words are changed in
// memory. CPU only; internal to the entropy module.
#pragma once

#include <cstdint>
#include <type_traits>

#include "entropy/ebcot/flags.h"
#include "entropy/ebcot/passes.h"

namespace mallat::entropy::detail {

// The significance bit of a sample's own position, row r of the stripe.
constexpr uint32_t own_sig_bit(int r) { return window_sig_bit(r + 1, 1); }

// D.3.2: the sign context and XOR bit (kSignLut's entry) of sample r of
// the column (word `w`, neighbours' words at f[-1] and f[1], 3x3
// neighbourhood `n`).
template <int r>
[[gnu::always_inline]] inline uint32_t sign_lut(uint32_t w, const uint32_t* f, uint32_t n) {
  const uint32_t index = ((n >> 1) & 0x55) | (((w >> (18 + r)) & 5) << 1) |
                         (((f[-1] >> (19 + r)) & 1) << 5) | (((f[1] >> (19 + r)) & 1) << 7);
  return kSignLut[index];
}

// D.3.2 / D.3.3: sample r of the column at `f` has become significant, its
// sign `negative`: mark it in the windows of the columns left and right
// and, for the stripe's first and last rows, of the stripes above and
// below. The column's own word is the caller's.
// The stride is made opaque to the compiler, so that the stripes above
// and below are reached from f when a sample becomes significant rather
// than through pointers of their own stepped with every column of the
// walk (beside the MQ coder's registers they would be kept on the stack).
template <int r>
[[gnu::always_inline]] inline void mark_in_neighbours(uint32_t* f, int column_stride, uint32_t negative) {
  asm("" : "+r"(column_stride));
  f[-1] |= window_sig_bit(r + 1, 2);
  f[1] |= window_sig_bit(r + 1, 0);
  if constexpr (r == 0) {
    uint32_t* up = f - column_stride;
    up[-1] |= window_sig_bit(5, 2);
    up[0] |= window_sig_bit(5, 1) | negative << 23;
    up[1] |= window_sig_bit(5, 0);
  } else if constexpr (r == 3) {
    uint32_t* down = f + column_stride;
    down[-1] |= window_sig_bit(0, 2);
    down[0] |= window_sig_bit(0, 1) | negative << 18;
    down[1] |= window_sig_bit(0, 0);
  }
}

// Runs step(integral_constant<int, r>) for r = 0 .. kRows-1.
template <int kRows, class Step>
inline void for_rows(Step&& step) {
  step(std::integral_constant<int, 0>{});
  if constexpr (kRows > 1) step(std::integral_constant<int, 1>{});
  if constexpr (kRows > 2) step(std::integral_constant<int, 2>{});
  if constexpr (kRows > 3) step(std::integral_constant<int, 3>{});
}

// Calls stripe(integral_constant<int, rows>, f, m) for each stripe with its
// first column word and magnitude: the full stripes, then a short last one.
template <class Stripe>
[[gnu::always_inline]] inline void for_each_stripe(T1State& s, Stripe&& stripe) {
  int y0 = 0;
  for (; y0 + 4 <= s.height; y0 += 4) {
    stripe(std::integral_constant<int, 4>{}, s.column(0, y0), s.magnitude(0, y0));
  }
  uint32_t* f = s.column(0, y0);
  uint32_t* m = s.magnitude(0, y0);
  switch (s.height - y0) {
    case 3: stripe(std::integral_constant<int, 3>{}, f, m); break;
    case 2: stripe(std::integral_constant<int, 2>{}, f, m); break;
    case 1: stripe(std::integral_constant<int, 1>{}, f, m); break;
    default: break;
  }
}

// One stripe of the D.3.1 significance propagation pass: code(row, ctx, n,
// w, f, m) codes sample `row` (an integral_constant) of the column whose
// word is `w` (held in a register, stored after the column), at `f`, and
// whose magnitudes are at `m`: an insignificant sample with a significant
// neighbour, which the walk has marked visited, in zero-coding context
// `ctx`, neighbourhood `n`. One look-up in `sp_lut`
// (kSignificancePassLut) decides whether a sample is coded.
template <bool kVsc, int kRows, class Magnitude, class Code>
[[gnu::always_inline]] inline void significance_stripe(uint32_t* f, Magnitude* m, int width, const uint8_t* sp_lut,
                                                       Code&& code) {
  for (int x = 0; x < width; ++x, ++f, m += 4) {
    uint32_t w = *f;
    // Nothing to do without a significant sample in the window, nor when
    // the four samples are significant already.
    if ((w & kWindowSig) == 0 || (w & kOwnSig) == kOwnSig) continue;
    for_rows<kRows>([&](auto row) {
      constexpr int r = decltype(row)::value;
      const uint32_t n = neighbourhood<kVsc, r>(w);
      const uint32_t ctx = sp_lut[n];
      if (ctx == kNotInSignificancePass) return;
      w |= visited_bit(r);
      code(row, ctx, n, w, f, m);
    });
    *f = w;
  }
}

// One stripe of the D.3.3 magnitude refinement pass: refine(row, ctx, m)
// codes sample `row` (an integral_constant) of the column whose magnitudes
// are at `m`, in context `ctx`; the walk marks it refined.
template <bool kVsc, int kRows, class Magnitude, class Refine>
[[gnu::always_inline]] inline void refinement_stripe(uint32_t* f, Magnitude* m, int width, Refine&& refine) {
  for (int x = 0; x < width; ++x, ++f, m += 4) {
    uint32_t w = *f;
    if ((w & kOwnSig) == 0) continue;
    for_rows<kRows>([&](auto row) {
      constexpr int r = decltype(row)::value;
      // Significant before this bit-plane's significance pass visited it.
      if ((w & (own_sig_bit(r) | visited_bit(r))) != own_sig_bit(r)) return;
      // Table D.4 without branches: 16 once refined, else 15 with a
      // significant neighbour, else 14.
      const uint32_t refined = (w >> (28 + r)) & 1;
      const uint32_t any = (neighbourhood<kVsc, r>(w) & kNbAll) != 0;
      refine(row, kRefinementContexts + ((refined << 1) | (any & (refined ^ 1))), m);
      w |= refined_bit(r);
    });
    *f = w;
  }
}

// D.3.4: run-length mode needs all four samples of a column insignificant,
// unvisited and with no significant neighbour; under VSC the row below the
// stripe does not count.
template <bool kVsc>
inline constexpr uint32_t kRunLengthBusy =
    kVsc ? (kWindowSig & ~(window_sig_bit(5, 0) | window_sig_bit(5, 1) | window_sig_bit(5, 2))) | kVisitedAll
         : kWindowSig | kVisitedAll;

// A full column each of whose four samples is significant or visited has
// nothing for the cleanup pass but the clearing of the marks. The own
// significance bits (3r + 4) gathered at bits 0..3 line up with the
// visited marks (24 + r).
inline bool all_significant_or_visited(uint32_t w) {
  const uint32_t sig4 = ((w >> 4) & 1) | ((w >> 6) & 2) | ((w >> 8) & 4) | ((w >> 10) & 8);
  return (sig4 | ((w >> 24) & 0xF)) == 0xF;
}

// The D.3.4 cleanup pass on a column outside run-length mode (word `w`
// at `f`): code(row, n) codes each sample neither significant nor visited
// (`row` an integral_constant, `n` its neighbourhood); then the visited
// marks are cleared for the next bit-plane and the word stored.
template <bool kVsc, int kRows, class Code>
[[gnu::always_inline]] inline void cleanup_column(uint32_t& w, uint32_t* f, Code&& code) {
  if constexpr (kRows == 4) {
    // Each of the four significant or visited: only the marks to clear.
    if (all_significant_or_visited(w)) {
      *f = w & ~kVisitedAll;
      return;
    }
  }
  for_rows<kRows>([&](auto row) {
    constexpr int r = decltype(row)::value;
    if (w & (own_sig_bit(r) | visited_bit(r))) return;
    code(row, neighbourhood<kVsc, r>(w));
  });
  *f = w & ~kVisitedAll;
}

}  // namespace mallat::entropy::detail
