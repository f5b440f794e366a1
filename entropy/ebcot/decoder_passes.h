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
// - the pass functions are flattened so every helper and decision is
//   inlined into one loop; the rows are template arguments of functions
//   given the decoder by reference, never lambdas': a closure holds the
//   decoder's address, and a decoder whose address is kept lives in
//   memory, so every decision would store and reload A and C.
// Decoder only; internal to the entropy module.
#pragma once

#include <cstdint>
#include <type_traits>

#include "entropy/ebcot/mq_fast_decoder.h"
#include "entropy/ebcot/contexts.h"
#include "entropy/ebcot/cpu_stripes.h"
#include "entropy/ebcot/flags.h"
#include "entropy/ebcot/passes.h"

namespace mallat::entropy::detail {

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
  mark_in_neighbours<r>(f, column_stride, negative);
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

// Runs Stripe::run<rows>(f, m, width, args...) on each stripe with its
// first column word and magnitude: the full stripes, then a short last
// one. The arguments (the pass's decoder among them) go by reference
// through inlined calls, so no closure keeps their addresses.
template <class Stripe, class... Args>
[[gnu::always_inline]] inline void for_each_decoded_stripe(T1State& s, Args&... args) {
  int y0 = 0;
  for (; y0 + 4 <= s.height; y0 += 4) {
    Stripe::template run<4>(s.column(0, y0), s.magnitude(0, y0), s.width, args...);
  }
  uint32_t* f = s.column(0, y0);
  uint32_t* m = s.magnitude(0, y0);
  switch (s.height - y0) {
    case 3: Stripe::template run<3>(f, m, s.width, args...); break;
    case 2: Stripe::template run<2>(f, m, s.width, args...); break;
    case 1: Stripe::template run<1>(f, m, s.width, args...); break;
    default: break;
  }
}

// Sample r of a column (word `w`, at `f`, magnitudes at `m`) in the D.3.1
// significance propagation pass: coded if insignificant with a significant
// neighbour, which one look-up in `sp_lut` (kSignificancePassLut) decides.
template <bool kVsc, int r>
[[gnu::always_inline]] inline void decode_significance_row(MqFastDecoder& mq, FastMqContexts& cx, uint32_t& w,
                                                           uint32_t* f, uint32_t* m, int stride,
                                                           const uint8_t* sp_lut, int p) {
  const uint32_t n = neighbourhood<kVsc, r>(w);
  const uint32_t ctx = sp_lut[n];
  if (ctx == kNotInSignificancePass) return;
  w |= visited_bit(r);
  // The sign's context is looked up before the decision is known, so its
  // loads overlap the decision's decoding (the empty asm keeps the compiler
  // from moving them behind the branch; the decision's context is never a
  // sign context, so the entry is still current there).
  uint32_t lut = sign_lut<r>(w, f, n);
  uint64_t sign_state = cx[lut & 31];
  asm("" : "+r"(lut), "+r"(sign_state));
  if (mq.decode_branchless(cx[ctx])) {
    decode_new_significance<r>(mq, cx, lut, sign_state, w, f, m, stride, p);
  }
}

// One stripe of the D.3.1 significance propagation pass.
template <bool kVsc>
struct SignificanceStripe {
  template <int kRows>
  [[gnu::always_inline]] static void run(uint32_t* f, uint32_t* m, int width, MqFastDecoder& mq,
                                         FastMqContexts& cx, int stride, const uint8_t* sp_lut, int p) {
    for (int x = 0; x < width; ++x, ++f, m += 4) {
      uint32_t w = *f;
      // Nothing to do without a significant sample in the window, nor when
      // the four samples are significant already.
      if ((w & kWindowSig) == 0 || (w & kOwnSig) == kOwnSig) continue;
      decode_significance_row<kVsc, 0>(mq, cx, w, f, m, stride, sp_lut, p);
      if constexpr (kRows > 1) decode_significance_row<kVsc, 1>(mq, cx, w, f, m, stride, sp_lut, p);
      if constexpr (kRows > 2) decode_significance_row<kVsc, 2>(mq, cx, w, f, m, stride, sp_lut, p);
      if constexpr (kRows > 3) decode_significance_row<kVsc, 3>(mq, cx, w, f, m, stride, sp_lut, p);
      *f = w;
    }
  }
};

template <bool kVsc>
[[gnu::flatten]] void decode_significance_pass(MqFastDecoder& decoder, FastMqContexts& contexts,
                                               T1State& s, const uint8_t* sp_lut, int p) {
  MqFastDecoder mq = decoder;
  FastMqContexts cx = contexts;
  for_each_decoded_stripe<SignificanceStripe<kVsc>>(s, mq, cx, s.column_stride, sp_lut, p);
  decoder = mq;
  contexts = cx;
}

// Sample r of a column (word `w`, magnitudes at `m`) in the D.3.3
// magnitude refinement pass: coded if significant before this bit-plane's
// significance pass visited it.
template <bool kVsc, int r>
[[gnu::always_inline]] inline void decode_refinement_row(MqFastDecoder& mq, FastMqContexts& cx, uint32_t& w,
                                                         uint32_t* m, int p) {
  if ((w & (own_sig_bit(r) | visited_bit(r))) != own_sig_bit(r)) return;
  // Table D.4 without branches: 16 once refined, else 15 with a
  // significant neighbour, else 14.
  const uint32_t refined = (w >> (28 + r)) & 1;
  const uint32_t any = (neighbourhood<kVsc, r>(w) & kNbAll) != 0;
  m[r] |= mq.decode_branchless(cx[kRefinementContexts + ((refined << 1) | (any & (refined ^ 1)))]) << p;
  w |= refined_bit(r);
}

// One stripe of the D.3.3 magnitude refinement pass.
template <bool kVsc>
struct RefinementStripe {
  template <int kRows>
  [[gnu::always_inline]] static void run(uint32_t* f, uint32_t* m, int width, MqFastDecoder& mq,
                                         FastMqContexts& cx, int p) {
    for (int x = 0; x < width; ++x, ++f, m += 4) {
      uint32_t w = *f;
      if ((w & kOwnSig) == 0) continue;
      decode_refinement_row<kVsc, 0>(mq, cx, w, m, p);
      if constexpr (kRows > 1) decode_refinement_row<kVsc, 1>(mq, cx, w, m, p);
      if constexpr (kRows > 2) decode_refinement_row<kVsc, 2>(mq, cx, w, m, p);
      if constexpr (kRows > 3) decode_refinement_row<kVsc, 3>(mq, cx, w, m, p);
      *f = w;
    }
  }
};

template <bool kVsc>
[[gnu::flatten]] void decode_refinement_pass(MqFastDecoder& decoder, FastMqContexts& contexts,
                                             T1State& s, int p) {
  MqFastDecoder mq = decoder;
  FastMqContexts cx = contexts;
  for_each_decoded_stripe<RefinementStripe<kVsc>>(s, mq, cx, p);
  decoder = mq;
  contexts = cx;
}

// Sample r of a column (word `w`, at `f`, magnitudes at `m`) in the D.3.4
// cleanup pass after run-length mode said that row `first` is the first
// significant one: that one's sign follows, the rows after it are coded as
// usual (they are insignificant and unvisited).
template <bool kVsc, int r>
[[gnu::always_inline]] inline void decode_run_row(MqFastDecoder& mq, FastMqContexts& cx, uint32_t& w, uint32_t* f,
                                                  uint32_t* m, int stride, const uint8_t* zc_lut, int p,
                                                  int first) {
  if (r < first) return;
  const uint32_t n = neighbourhood<kVsc, r>(w);
  if (r > first && !mq.decode(cx[zc_lut[n]])) return;
  decode_new_significance<r>(mq, cx, w, f, m, n, stride, p);
}

// Sample r of a column outside run-length mode in the D.3.4 cleanup pass:
// coded if neither significant nor visited.
template <bool kVsc, int r>
[[gnu::always_inline]] inline void decode_cleanup_row(MqFastDecoder& mq, FastMqContexts& cx, uint32_t& w,
                                                      uint32_t* f, uint32_t* m, int stride, const uint8_t* zc_lut,
                                                      int p) {
  if (w & (own_sig_bit(r) | visited_bit(r))) return;
  const uint32_t n = neighbourhood<kVsc, r>(w);
  if (mq.decode(cx[zc_lut[n]])) decode_new_significance<r>(mq, cx, w, f, m, n, stride, p);
}

// One stripe of the D.3.4 cleanup pass, clearing the visited marks.
template <bool kVsc>
struct CleanupStripe {
  template <int kRows>
  [[gnu::always_inline]] static void run(uint32_t* f, uint32_t* m, int width, MqFastDecoder& mq,
                                         FastMqContexts& cx, int stride, const uint8_t* zc_lut, int p) {
    constexpr uint32_t kBusy = kRunLengthBusy<kVsc>;
    for (int x = 0; x < width; ++x, ++f, m += 4) {
      uint32_t w = *f;
      if constexpr (kRows == 4) {
        if ((w & kBusy) == 0) {
          // Run-length mode: one symbol says whether any of the four
          // becomes significant, two UNIFORM symbols say which is first. No
          // visited mark to clear: kBusy includes them.
          if (!mq.decode(cx[kRunLengthContext])) continue;
          int first = static_cast<int>(mq.decode_branchless(cx[kUniformContext])) << 1;
          first |= static_cast<int>(mq.decode_branchless(cx[kUniformContext]));
          decode_run_row<kVsc, 0>(mq, cx, w, f, m, stride, zc_lut, p, first);
          decode_run_row<kVsc, 1>(mq, cx, w, f, m, stride, zc_lut, p, first);
          decode_run_row<kVsc, 2>(mq, cx, w, f, m, stride, zc_lut, p, first);
          decode_run_row<kVsc, 3>(mq, cx, w, f, m, stride, zc_lut, p, first);
          *f = w;
          continue;
        }
        // Each of the four significant or visited: only the marks to clear.
        if (all_significant_or_visited(w)) {
          *f = w & ~kVisitedAll;
          continue;
        }
      }
      decode_cleanup_row<kVsc, 0>(mq, cx, w, f, m, stride, zc_lut, p);
      if constexpr (kRows > 1) decode_cleanup_row<kVsc, 1>(mq, cx, w, f, m, stride, zc_lut, p);
      if constexpr (kRows > 2) decode_cleanup_row<kVsc, 2>(mq, cx, w, f, m, stride, zc_lut, p);
      if constexpr (kRows > 3) decode_cleanup_row<kVsc, 3>(mq, cx, w, f, m, stride, zc_lut, p);
      *f = w & ~kVisitedAll;
    }
  }
};

template <bool kVsc>
[[gnu::flatten]] void decode_cleanup_pass(MqFastDecoder& decoder, FastMqContexts& contexts,
                                          T1State& s, const uint8_t* zc_lut, int p) {
  MqFastDecoder mq = decoder;
  FastMqContexts cx = contexts;
  for_each_decoded_stripe<CleanupStripe<kVsc>>(s, mq, cx, s.column_stride, zc_lut, p);
  decoder = mq;
  contexts = cx;
}

}  // namespace mallat::entropy::detail
