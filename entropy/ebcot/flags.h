// The fast coder's state: one 32-bit word per stripe column (four samples,
// D.1) that holds the significance of the 6x3 window around the column (the
// four samples, the rows above and below, the columns left and right), the
// signs of the column's six rows, and the visited and refined marks of the
// four samples. A sample's context is then a shift, a mask and a table read,
// and a column with nothing to code is one test.
#pragma once

#include <array>
#include <cstdint>

#include "entropy/host_device.h"
#include "entropy/ebcot/contexts.h"

namespace mallat::entropy {

// Significance of window row j (0 = the row above the stripe, 1..4 = the
// stripe, 5 = the row below) and column c (0 left, 1 this, 2 right).
constexpr uint32_t window_sig_bit(int j, int c) { return 1u << (3 * j + c); }
inline constexpr uint32_t kWindowSig = 0x3FFFF;  // all 18
// Sign (1 = negative) of window row j of this column.
constexpr uint32_t sign_bit(int j) { return 1u << (18 + j); }
// Visited by this bit-plane's significance propagation pass; refined before.
constexpr uint32_t visited_bit(int r) { return 1u << (24 + r); }
constexpr uint32_t refined_bit(int r) { return 1u << (28 + r); }
inline constexpr uint32_t kVisitedAll = 0x0F000000;
// The four samples' own significance bits.
inline constexpr uint32_t kOwnSig =
    window_sig_bit(1, 1) | window_sig_bit(2, 1) | window_sig_bit(3, 1) | window_sig_bit(4, 1);

// A sample's 3x3 neighbourhood, (word >> 3r) & 0x1FF, has these bits:
inline constexpr uint32_t kNbNW = 1u << 0, kNbN = 1u << 1, kNbNE = 1u << 2, kNbW = 1u << 3;
inline constexpr uint32_t kNbSelf = 1u << 4, kNbE = 1u << 5, kNbSW = 1u << 6, kNbS = 1u << 7;
inline constexpr uint32_t kNbSE = 1u << 8;
inline constexpr uint32_t kNbAll = 0x1FF & ~kNbSelf;
// D.6 vertically causal: for row 3 the row below the stripe does not count.
inline constexpr uint32_t kNbBelow = kNbSW | kNbS | kNbSE;

// Zero-coding context by orientation and 3x3 neighbourhood (Table D.1).
inline constexpr std::array<std::array<uint8_t, 512>, 4> kZeroCodingLut = [] {
  std::array<std::array<uint8_t, 512>, 4> lut{};
  for (int o = 0; o < 4; ++o) {
    for (uint32_t n = 0; n < 512; ++n) {
      const int h = ((n & kNbW) != 0) + ((n & kNbE) != 0);
      const int v = ((n & kNbN) != 0) + ((n & kNbS) != 0);
      const int d = ((n & kNbNW) != 0) + ((n & kNbNE) != 0) + ((n & kNbSW) != 0) +
                    ((n & kNbSE) != 0);
      lut[o][n] = static_cast<uint8_t>(zero_coding_context(static_cast<BandOrientation>(o), h, v, d));
    }
  }
  return lut;
}();
MALLAT_DEVICE_TABLE(kZeroCodingLut)

// The significance propagation pass codes a sample that is insignificant
// and has a significant neighbour (D.3.1): this table gives its zero-coding
// context by the 3x3 neighbourhood including the sample itself, and
// kNotInSignificancePass where the pass skips the sample, so one test decides.
inline constexpr uint8_t kNotInSignificancePass = 0xFF;
inline constexpr std::array<std::array<uint8_t, 512>, 4> kSignificancePassLut = [] {
  std::array<std::array<uint8_t, 512>, 4> lut{};
  for (int o = 0; o < 4; ++o) {
    for (uint32_t n = 0; n < 512; ++n) {
      const bool coded = (n & kNbSelf) == 0 && (n & kNbAll) != 0;
      lut[o][n] = coded ? kZeroCodingLut[o][n] : kNotInSignificancePass;
    }
  }
  return lut;
}();

// Sign look-up index (8 bits), laid out so it is a few shifts of the
// column words (see code_sign in entropy/ebcot/passes.h): significance of N, W, E, S
// at bits 0, 2, 4, 6 (the neighbourhood's bits 1, 3, 5, 7 shifted down by
// one), signs of N and S at bits 1 and 3, of W and E at bits 5 and 7.
// Entry: context (bits 0..4) and XOR bit (bit 7), Tables D.2 and D.3.
inline constexpr uint32_t kScSigN = 1u << 0, kScNegN = 1u << 1, kScSigW = 1u << 2;
inline constexpr uint32_t kScNegS = 1u << 3, kScSigE = 1u << 4, kScNegW = 1u << 5;
inline constexpr uint32_t kScSigS = 1u << 6, kScNegE = 1u << 7;
inline constexpr std::array<uint8_t, 256> kSignLut = [] {
  std::array<uint8_t, 256> lut{};
  for (uint32_t i = 0; i < 256; ++i) {
    auto contribution = [i](uint32_t sig, uint32_t neg) { return (i & sig) ? ((i & neg) ? -1 : 1) : 0; };
    int h = contribution(kScSigW, kScNegW) + contribution(kScSigE, kScNegE);
    int v = contribution(kScSigN, kScNegN) + contribution(kScSigS, kScNegS);
    h = h < -1 ? -1 : h > 1 ? 1 : h;
    v = v < -1 ? -1 : v > 1 ? 1 : v;
    const SignContext sc = sign_context(h, v);
    lut[i] = static_cast<uint8_t>(sc.context | sc.xor_bit << 7);
  }
  return lut;
}();
MALLAT_DEVICE_TABLE(kSignLut)

}  // namespace mallat::entropy
