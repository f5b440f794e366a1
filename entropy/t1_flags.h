// The fast coder's per-sample state word and the look-up tables indexed by
// it. Each sample keeps the significance of its eight neighbours and the
// signs of its four direct ones, updated when a neighbour becomes
// significant, so a context is one mask and one table read.
#pragma once

#include <array>
#include <cstdint>

#include "entropy/t1_contexts.h"

namespace mallat::entropy {

// Significance of the neighbours (bits 0..7), then signs of the direct ones.
inline constexpr uint32_t kSigN = 1u << 0, kSigS = 1u << 1, kSigW = 1u << 2, kSigE = 1u << 3;
inline constexpr uint32_t kSigNW = 1u << 4, kSigNE = 1u << 5, kSigSW = 1u << 6, kSigSE = 1u << 7;
inline constexpr uint32_t kNegN = 1u << 8, kNegS = 1u << 9, kNegW = 1u << 10, kNegE = 1u << 11;
inline constexpr uint32_t kNeighbourSig = 0xFF;
// The sample's own state: significant; visited by this bit-plane's
// significance propagation pass; refined at least once.
inline constexpr uint32_t kSig = 1u << 12, kVisited = 1u << 13, kRefined = 1u << 14;
// D.6 vertically causal: in a stripe's last row the row below is unknown.
inline constexpr uint32_t kBelowStripe = kSigS | kSigSW | kSigSE | kNegS;

// Zero-coding context by orientation and neighbour significance bits.
inline constexpr std::array<std::array<uint8_t, 256>, 4> kZeroCodingLut = [] {
  std::array<std::array<uint8_t, 256>, 4> lut{};
  for (int o = 0; o < 4; ++o) {
    for (uint32_t f = 0; f < 256; ++f) {
      const int h = ((f & kSigW) != 0) + ((f & kSigE) != 0);
      const int v = ((f & kSigN) != 0) + ((f & kSigS) != 0);
      const int d = ((f & kSigNW) != 0) + ((f & kSigNE) != 0) + ((f & kSigSW) != 0) +
                    ((f & kSigSE) != 0);
      lut[o][f] = static_cast<uint8_t>(zero_coding_context(static_cast<BandOrientation>(o), h, v, d));
    }
  }
  return lut;
}();

// Index of the sign look-up: significance of N, S, W, E in bits 0..3 and
// their signs in bits 4..7.
inline uint32_t sign_lut_index(uint32_t flags) { return (flags & 0xF) | ((flags >> 4) & 0xF0); }

// Sign context (bits 0..4) and XOR bit (bit 7) by sign_lut_index.
inline constexpr std::array<uint8_t, 256> kSignLut = [] {
  std::array<uint8_t, 256> lut{};
  for (uint32_t i = 0; i < 256; ++i) {
    auto contribution = [i](uint32_t sig, uint32_t neg) {
      return (i & sig) ? ((i & (neg >> 4)) ? -1 : 1) : 0;
    };
    int h = contribution(kSigW, kNegW) + contribution(kSigE, kNegE);
    int v = contribution(kSigN, kNegN) + contribution(kSigS, kNegS);
    h = h < -1 ? -1 : h > 1 ? 1 : h;
    v = v < -1 ? -1 : v > 1 ? 1 : v;
    const SignContext sc = sign_context(h, v);
    lut[i] = static_cast<uint8_t>(sc.context | sc.xor_bit << 7);
  }
  return lut;
}();

}  // namespace mallat::entropy
