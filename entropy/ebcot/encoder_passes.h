// The encoder's MQ-coded passes (D.3), written for speed apart from the
// shared templates of entropy/ebcot/passes.h (which the raw passes and the
// host/device encoder of entropy/ebcot/shared_encoder.h use), as
// entropy/ebcot/decoder_passes.h is for the decoder:
// - the MQ encoder and the contexts are local copies for the whole pass,
//   so A, C, CT and the byte pointer stay in registers;
// - a stripe column's flag word stays in a register while its four samples
//   are coded (only the neighbours' words are written through memory),
//   which leaves registers for the coder where the shared passes' three
//   words of ColumnWords do not;
// - decisions close to coin tosses take no branches (encode_branchless of
//   entropy/ebcot/mq_fast_encoder.h), the cleanup pass's zero coding outside
//   run-length mode included; the symbols mostly the MPS (run-length, and
//   zero coding inside a run-length column) keep the short predicted path;
// - one look-up decides whether the significance pass codes a sample, and
//   full stripes run without row-count checks;
// - the run-length mode finds the column's first significant sample from
//   its four magnitude bits at once.
// The symbols, their order and the distortion sums are those of the shared
// passes; tests/entropy/t1_test.cc holds both to the reference encoder.
// Encoder only; CPU only; internal to the entropy module.
#pragma once

#include <cstdint>

#include "entropy/ebcot/contexts.h"
#include "entropy/ebcot/cpu_stripes.h"
#include "entropy/ebcot/flags.h"
#include "entropy/ebcot/mq_encoder.h"
#include "entropy/ebcot/mq_fast_encoder.h"
#include "entropy/ebcot/passes.h"

namespace mallat::entropy::detail {

// What a pass's stripes share: the coder and its contexts (local copies),
// the column stride, the bit-plane, the distortion gains and their sum,
// which is left 0 without kDistortion.
template <bool kDistortion>
struct EncodeStripes {
  MqEncoder mq;
  FastMqEncodeContexts cx;
  int stride;
  int p;
  PlaneGains gains;
  DistortionSum dist;
  static constexpr bool kMeasured = kDistortion;

  // The bit of plane p of magnitude `mag`.
  uint32_t bit(uint32_t mag) const { return (mag >> p) & 1; }

  // D.3.2: sample r of the column (word `w` at `f`, magnitude `mag`,
  // neighbourhood `n`) is newly significant: code its sign (the encoder
  // set every sign in the words up front), mark it significant here and
  // in the neighbours' windows, and count the distortion it removes.
  template <int r>
  [[gnu::always_inline]] void new_significance(uint32_t& w, uint32_t* f, uint32_t mag, uint32_t n) {
    const uint32_t lut = sign_lut<r>(w, f, n);
    const uint32_t negative = (w >> (19 + r)) & 1;
    encode_branchless(mq, cx[lut & 31], negative ^ (lut >> 7));
    w |= own_sig_bit(r);
    mark_in_neighbours<r>(f, stride, negative);
    if constexpr (kDistortion) dist.add(gains.significance(mag));
  }
};

// One stripe of the D.3.1 significance propagation pass.
template <bool kVsc, int kRows, class Stripes>
[[gnu::always_inline]] inline void encode_significance_stripe(Stripes& e, uint32_t* f, const uint32_t* m, int width,
                                       const uint8_t* sp_lut) {
  significance_stripe<kVsc, kRows>(f, m, width, sp_lut, [&](auto row, uint32_t ctx, uint32_t n, uint32_t& w,
                                                              uint32_t* fw, const uint32_t* mags) {
    constexpr int r = decltype(row)::value;
    const uint32_t mag = mags[r];
    const uint32_t bit = e.bit(mag);
    encode_branchless(e.mq, e.cx[ctx], bit);
    if (bit) e.template new_significance<r>(w, fw, mag, n);
  });
}

// One stripe of the D.3.3 magnitude refinement pass.
template <bool kVsc, int kRows, class Stripes>
[[gnu::always_inline]] inline void encode_refinement_stripe(Stripes& e, uint32_t* f, const uint32_t* m, int width) {
  refinement_stripe<kVsc, kRows>(f, m, width, [&](auto row, uint32_t ctx, const uint32_t* mags) {
    const uint32_t mag = mags[decltype(row)::value];
    encode_branchless(e.mq, e.cx[ctx], e.bit(mag));
    if constexpr (Stripes::kMeasured) e.dist.add(e.gains.refinement(mag));
  });
}

// One stripe of the D.3.4 cleanup pass, clearing the visited marks.
template <bool kVsc, int kRows, class Stripes>
[[gnu::always_inline]] inline void encode_cleanup_stripe(Stripes& e, uint32_t* f, const uint32_t* m, int width,
                                  const uint8_t* zc_lut) {
  for (int x = 0; x < width; ++x, ++f, m += 4) {
    uint32_t w = *f;
    if constexpr (kRows == 4) {
      if ((w & kRunLengthBusy<kVsc>) == 0) {
        // Run-length mode: one symbol says whether any of the four becomes
        // significant, two UNIFORM symbols say which is first; that one's
        // sign follows and the rows after it are coded as usual.
        const uint32_t bits = e.bit(m[0]) | e.bit(m[1]) << 1 | e.bit(m[2]) << 2 | e.bit(m[3]) << 3;
        encode(e.mq, e.cx[kRunLengthContext], bits != 0);
        if (bits == 0) continue;
        const int first = __builtin_ctz(bits);
        encode_branchless(e.mq, e.cx[kUniformContext], static_cast<uint32_t>(first >> 1));
        encode_branchless(e.mq, e.cx[kUniformContext], static_cast<uint32_t>(first & 1));
        for_rows<4>([&](auto row) {
          constexpr int r = decltype(row)::value;
          if (r < first) return;
          const uint32_t n = neighbourhood<kVsc, r>(w);
          // The rows after the first are insignificant and unvisited.
          if (r > first) {
            const uint32_t bit = (bits >> r) & 1;
            encode(e.mq, e.cx[zc_lut[n]], bit);
            if (!bit) return;
          }
          e.template new_significance<r>(w, f, m[r], n);
        });
        *f = w;
        continue;
      }
    }
    cleanup_column<kVsc, kRows>(w, f, [&](auto row, uint32_t n) {
      constexpr int r = decltype(row)::value;
      const uint32_t mag = m[r];
      const uint32_t bit = e.bit(mag);
      encode_branchless(e.mq, e.cx[zc_lut[n]], bit);
      if (bit) e.template new_significance<r>(w, f, mag, n);
    });
  }
}

// One MQ-coded pass of kind kType for bit-plane p on the coder `symbols`
// (its encoder and contexts), adding the pass's distortion decrease to the
// state's (kDistortion) or leaving it.
template <bool kVsc, bool kDistortion, PassType kType>
[[gnu::flatten]] void encode_mq_pass(MqEncodeSymbols& symbols, T1State& s, const uint8_t* lut, int p) {
  EncodeStripes<kDistortion> e{symbols.mq, fast_encode_contexts(symbols.cx), s.column_stride, p, PlaneGains(p), {}};
  for_each_stripe(s, [&](auto rows, uint32_t* f, const uint32_t* m) {
    constexpr int kRows = decltype(rows)::value;
    if constexpr (kType == PassType::kSignificance) {
      encode_significance_stripe<kVsc, kRows>(e, f, m, s.width, lut);
    } else if constexpr (kType == PassType::kRefinement) {
      encode_refinement_stripe<kVsc, kRows>(e, f, m, s.width);
    } else {
      encode_cleanup_stripe<kVsc, kRows>(e, f, m, s.width, lut);
    }
  });
  if constexpr (kDistortion) s.distortion += e.dist.value();
  symbols.mq = e.mq;
  symbols.cx = state_bytes(e.cx);
}

// Runs the MQ-coded pass `type`: the significance pass looks its samples
// up in `sp_lut` (kSignificancePassLut), the cleanup pass in `zc_lut`.
template <bool kVsc, bool kDistortion>
inline void encode_mq_pass(PassType type, MqEncodeSymbols& symbols, T1State& s, const uint8_t* zc_lut,
                           const uint8_t* sp_lut, int p) {
  switch (type) {
    case PassType::kSignificance: encode_mq_pass<kVsc, kDistortion, PassType::kSignificance>(symbols, s, sp_lut, p); break;
    case PassType::kRefinement: encode_mq_pass<kVsc, kDistortion, PassType::kRefinement>(symbols, s, nullptr, p); break;
    case PassType::kCleanup: encode_mq_pass<kVsc, kDistortion, PassType::kCleanup>(symbols, s, zc_lut, p); break;
  }
}

}  // namespace mallat::entropy::detail
