// The reversible 5/3 lifting steps of F.4.8.1 (forward) and F.3.8.1
// (inverse), in integers with the floor divisions written as arithmetic
// shifts (C++20: >> on a negative value floors).
#pragma once

#include <cstdint>

namespace mallat::dwt::cpu::MALLAT_DWT_ISA {

struct Reversible53 {
  // Y(2n+1) = X(2n+1) - floor((X(2n) + X(2n+2)) / 2), then
  // Y(2n)   = X(2n) + floor((Y(2n-1) + Y(2n+1) + 2) / 4).
  template <typename L>
  static void forward(const L& l) {
    l.on_d([](int32_t x, int32_t a, int32_t b) { return x - ((a + b) >> 1); });
    l.on_s([](int32_t x, int32_t a, int32_t b) { return x + ((a + b + 2) >> 2); });
  }
  template <typename L>
  static void inverse(const L& l) {
    l.on_s([](int32_t x, int32_t a, int32_t b) { return x - ((a + b + 2) >> 2); });
    l.on_d([](int32_t x, int32_t a, int32_t b) { return x + ((a + b) >> 1); });
  }
  // F.4.7 / F.3.7: a lone sample at an odd coordinate is doubled, and halved
  // back (truncating, as OpenJPEG does for odd values a lossy decode can give).
  static int32_t lone_forward(int32_t x) { return x * 2; }
  static int32_t lone_inverse(int32_t x) { return x / 2; }
};

}  // namespace mallat::dwt::cpu::MALLAT_DWT_ISA
