// The decoder's MQ-coded passes (D.3), written for speed apart from the
// shared templates of entropy/ebcot/passes.h (which the encoder and the raw passes
// use):
// - the MQ decoder (entropy/ebcot/mq_fast_decoder.h) is a local copy for the
//   whole pass, so A, C, CT and the byte pointer stay in registers, and it
//   reads a PaddedSegment with no bounds checks; its contexts hold whole
//   state entries, one load from Qe;
// - decisions close to coin tosses (significance propagation, signs,
//   refinement) take no branches (MqFastDecoder::decode_branchless); the
//   cleanup pass's, mostly the MPS, keep the short predicted path
//   (MqFastDecoder::decode);
// - a stripe column's flag word stays in a register while its four samples
//   are decoded (only the neighbours' words are written through memory);
// - one look-up decides whether the significance pass codes a sample, and
//   full stripes run without row-count checks;
// - there the sign's context is looked up while the significance decision
//   is decoded, so the branch on that decision, a coin toss, waits less
//   after a misprediction;
// - the pass functions are flattened so every helper, lambda and decision
//   is inlined into one loop.
// Decoder only; internal to the entropy module.
#pragma once

#include <cstdint>
#include <type_traits>

#include "entropy/ebcot/mq_fast_decoder.h"
#include "entropy/ebcot/contexts.h"
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

// D.3.2: sample r of the column (word `w`, neighbours' words at f[-1] and
// f[1]) has just been decoded significant: decode its sign (`lut` its
// sign_lut, `sign_state` the entry of its context as loaded ahead), mark it
// in this word and in the neighbours' windows, and set its magnitude to 2^p.
template <int r>
[[gnu::always_inline]] inline void decode_new_significance(MqFastDecoder& mq, FastMqContexts& cx,
                                                          uint32_t lut, uint64_t sign_state, uint32_t& w,
                                                          uint32_t* f, uint32_t* m, int column_stride, int p) {
  const uint32_t negative = mq.decode_branchless(cx[lut & 31], sign_state) ^ (lut >> 7);
  w |= own_sig_bit(r) | negative << (19 + r);
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
  m[r] = 1u << p;
}

// The same with the sign's context looked up here (`n` the neighbourhood).
template <int r>
[[gnu::always_inline]] inline void decode_new_significance(MqFastDecoder& mq, FastMqContexts& cx,
                                                          uint32_t& w, uint32_t* f, uint32_t* m,
                                                          uint32_t n, int column_stride, int p) {
  const uint32_t lut = sign_lut<r>(w, f, n);
  decode_new_significance<r>(mq, cx, lut, cx[lut & 31], w, f, m, column_stride, p);
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

// One stripe of the D.3.1 significance propagation pass.
template <bool kVsc, int kRows>
inline void decode_significance_stripe(MqFastDecoder& mq, FastMqContexts& cx, uint32_t* f,
                                       uint32_t* m, int width, int stride,
                                       const uint8_t* sp_lut, int p) {
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
      // The sign's context is looked up before the decision is known, so
      // its loads overlap the decision's decoding (the empty asm keeps the
      // compiler from moving them behind the branch; the decision's context
      // is never a sign context, so the entry is still current there).
      uint32_t lut = sign_lut<r>(w, f, n);
      uint64_t sign_state = cx[lut & 31];
      asm("" : "+r"(lut), "+r"(sign_state));
      if (mq.decode_branchless(cx[ctx])) {
        decode_new_significance<r>(mq, cx, lut, sign_state, w, f, m, stride, p);
      }
    });
    *f = w;
  }
}

template <bool kVsc>
[[gnu::flatten]] void decode_significance_pass(MqFastDecoder& decoder, FastMqContexts& contexts,
                                               T1State& s, const uint8_t* sp_lut, int p) {
  MqFastDecoder mq = decoder;
  FastMqContexts cx = contexts;
  const int stride = s.column_stride;
  for_each_stripe(s, [&](auto rows, uint32_t* f, uint32_t* m) {
    decode_significance_stripe<kVsc, decltype(rows)::value>(mq, cx, f, m, s.width, stride, sp_lut,
                                                            p);
  });
  decoder = mq;
  contexts = cx;
}

// One stripe of the D.3.3 magnitude refinement pass.
template <bool kVsc, int kRows>
inline void decode_refinement_stripe(MqFastDecoder& mq, FastMqContexts& cx, uint32_t* f,
                                     uint32_t* m, int width, int p) {
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
      const uint32_t ctx = kRefinementContexts + ((refined << 1) | (any & (refined ^ 1)));
      m[r] |= mq.decode_branchless(cx[ctx]) << p;
      w |= refined_bit(r);
    });
    *f = w;
  }
}

template <bool kVsc>
[[gnu::flatten]] void decode_refinement_pass(MqFastDecoder& decoder, FastMqContexts& contexts,
                                             T1State& s, int p) {
  MqFastDecoder mq = decoder;
  FastMqContexts cx = contexts;
  for_each_stripe(s, [&](auto rows, uint32_t* f, uint32_t* m) {
    decode_refinement_stripe<kVsc, decltype(rows)::value>(mq, cx, f, m, s.width, p);
  });
  decoder = mq;
  contexts = cx;
}

// One stripe of the D.3.4 cleanup pass, clearing the visited marks.
template <bool kVsc, int kRows>
inline void decode_cleanup_stripe(MqFastDecoder& mq, FastMqContexts& cx, uint32_t* f,
                                  uint32_t* m, int width, int stride, const uint8_t* zc_lut,
                                  int p) {
  // Run-length mode needs all four samples insignificant, unvisited and with
  // no significant neighbour; under VSC the row below does not count.
  constexpr uint32_t kBusy = kVsc ? (kWindowSig & ~(window_sig_bit(5, 0) | window_sig_bit(5, 1) |
                                                    window_sig_bit(5, 2))) | kVisitedAll
                                  : kWindowSig | kVisitedAll;
  for (int x = 0; x < width; ++x, ++f, m += 4) {
    uint32_t w = *f;
    if constexpr (kRows == 4) {
      if ((w & kBusy) == 0) {
        // Run-length mode: one symbol says whether any of the four becomes
        // significant, two UNIFORM symbols say which is first; that one's
        // sign follows and the rows after it are coded as usual.
        if (!mq.decode(cx[kRunLengthContext])) continue;
        int first = static_cast<int>(mq.decode_branchless(cx[kUniformContext])) << 1;
        first |= static_cast<int>(mq.decode_branchless(cx[kUniformContext]));
        for_rows<4>([&](auto row) {
          constexpr int r = decltype(row)::value;
          if (r < first) return;
          // The rows after the first are insignificant and unvisited.
          if (r > first && !mq.decode(cx[zc_lut[neighbourhood<kVsc, r>(w)]])) return;
          decode_new_significance<r>(mq, cx, w, f, m, neighbourhood<kVsc, r>(w), stride, p);
        });
        *f = w;
        continue;
      }
      // Each of the four significant or visited: only the marks to clear.
      // The own significance bits (3r + 4) gathered at bits 0..3 line up
      // with the visited marks (24 + r).
      const uint32_t sig4 = ((w >> 4) & 1) | ((w >> 6) & 2) | ((w >> 8) & 4) | ((w >> 10) & 8);
      if ((sig4 | ((w >> 24) & 0xF)) == 0xF) {
        *f = w & ~kVisitedAll;
        continue;
      }
    }
    for_rows<kRows>([&](auto row) {
      constexpr int r = decltype(row)::value;
      if (w & (own_sig_bit(r) | visited_bit(r))) return;
      const uint32_t n = neighbourhood<kVsc, r>(w);
      if (mq.decode(cx[zc_lut[n]])) {
        decode_new_significance<r>(mq, cx, w, f, m, n, stride, p);
      }
    });
    *f = w & ~kVisitedAll;
  }
}

template <bool kVsc>
[[gnu::flatten]] void decode_cleanup_pass(MqFastDecoder& decoder, FastMqContexts& contexts,
                                          T1State& s, const uint8_t* zc_lut, int p) {
  MqFastDecoder mq = decoder;
  FastMqContexts cx = contexts;
  const int stride = s.column_stride;
  for_each_stripe(s, [&](auto rows, uint32_t* f, uint32_t* m) {
    decode_cleanup_stripe<kVsc, decltype(rows)::value>(mq, cx, f, m, s.width, stride, zc_lut, p);
  });
  decoder = mq;
  contexts = cx;
}

}  // namespace mallat::entropy::detail
