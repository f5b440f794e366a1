// The 19 contexts of Tier-1 (D.3, Table D.7) and the rules that pick them:
// zero coding from the count of significant neighbours (Table D.1), sign
// coding from the signs of the four direct neighbours (Tables D.2, D.3),
// magnitude refinement (Table D.4). The plain functions state the tables;
// the look-up tables fold them over the per-sample flag word of entropy/ebcot/flags.h.
#pragma once

#include <array>
#include <cstdint>

#include "entropy/code_block_style.h"
#include "entropy/ebcot/mq_states.h"

namespace mallat::entropy {

// Context numbers (the order OpenJPEG and the literature use).
inline constexpr int kZeroCodingContexts = 0;  // 0..8
inline constexpr int kSignContexts = 9;        // 9..13
inline constexpr int kRefinementContexts = 14; // 14..16
inline constexpr int kRunLengthContext = 17;
inline constexpr int kUniformContext = 18;
inline constexpr int kNumContexts = 19;

using MqContexts = std::array<uint8_t, kNumContexts>;

// Table D.7: every context starts at I = 0, MPS = 0, except UNIFORM (46),
// run-length (3) and zero coding with no significant neighbour (4).
inline constexpr MqContexts initial_contexts() {
  MqContexts cx{};
  cx[kZeroCodingContexts] = mq_state(4, 0);
  cx[kRunLengthContext] = mq_state(3, 0);
  cx[kUniformContext] = mq_state(46, 0);
  return cx;
}

// Table D.1: h, v, d count the significant horizontal (0..2), vertical (0..2)
// and diagonal (0..4) neighbours.
constexpr int zero_coding_context(BandOrientation orientation, int h, int v, int d) {
  if (orientation == BandOrientation::kHH) {
    const int hv = h + v;
    if (d >= 3) return 8;
    if (d == 2) return hv >= 1 ? 7 : 6;
    if (d == 1) return hv >= 2 ? 5 : hv == 1 ? 4 : 3;
    return hv >= 2 ? 2 : hv;
  }
  // HL is LL/LH with the roles of horizontal and vertical exchanged.
  if (orientation == BandOrientation::kHL) {
    const int t = h;
    h = v;
    v = t;
  }
  if (h == 2) return 8;
  if (h == 1) return v >= 1 ? 7 : d >= 1 ? 6 : 5;
  if (v == 2) return 4;
  if (v == 1) return 3;
  return d >= 2 ? 2 : d;
}

struct SignContext {
  uint8_t context;
  uint8_t xor_bit;
};

// Tables D.2 and D.3: h and v are the horizontal and vertical contributions,
// each clamped to -1..1 (+1 for a significant positive neighbour, -1 for a
// significant negative one).
constexpr SignContext sign_context(int h, int v) {
  if (h == 0) {
    if (v == 0) return {9, 0};
    return {10, static_cast<uint8_t>(v < 0)};
  }
  const uint8_t x = h < 0;
  const int vv = h < 0 ? -v : v;  // Table D.3 is symmetric under negating both
  return {static_cast<uint8_t>(vv == 1 ? 13 : vv == 0 ? 12 : 11), x};
}

// Table D.4: 16 after the first refinement; otherwise 15 if any of the eight
// neighbours is significant, 14 if none is.
constexpr int refinement_context(bool refined_before, bool any_neighbour_significant) {
  return refined_before ? 16 : any_neighbour_significant ? 15 : 14;
}

}  // namespace mallat::entropy
