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

// One stripe of the D.3.1 significance propagation pass.
template <bool kVsc, int kRows>
inline void decode_significance_stripe(MqFastDecoder& mq, FastMqContexts& cx, uint32_t* f,
                                       uint32_t* m, int width, int stride,
                                       const uint8_t* sp_lut, int p) {
  significance_stripe<kVsc, kRows>(f, m, width, sp_lut, [&](auto row, uint32_t ctx, uint32_t n, uint32_t& w,
                                                              uint32_t* fw, uint32_t* mags) {
    constexpr int r = decltype(row)::value;
    // The sign's context is looked up before the decision is known, so
    // its loads overlap the decision's decoding (the empty asm keeps the
    // compiler from moving them behind the branch; the decision's context
    // is never a sign context, so the entry is still current there).
    uint32_t lut = sign_lut<r>(w, fw, n);
    uint64_t sign_state = cx[lut & 31];
    asm("" : "+r"(lut), "+r"(sign_state));
    if (mq.decode_branchless(cx[ctx])) {
      decode_new_significance<r>(mq, cx, lut, sign_state, w, fw, mags, stride, p);
    }
  });
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
  refinement_stripe<kVsc, kRows>(f, m, width, [&](auto row, uint32_t ctx, uint32_t* mags) {
    mags[decltype(row)::value] |= mq.decode_branchless(cx[ctx]) << p;
  });
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
  constexpr uint32_t kBusy = kRunLengthBusy<kVsc>;
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
    }
    cleanup_column<kVsc, kRows>(w, f, [&](auto row, uint32_t n) {
      constexpr int r = decltype(row)::value;
      if (mq.decode(cx[zc_lut[n]])) decode_new_significance<r>(mq, cx, w, f, m, n, stride, p);
    });
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
