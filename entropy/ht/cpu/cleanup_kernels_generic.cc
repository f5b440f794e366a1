// The HT cleanup kernels for the compiler's baseline instruction set (SSE2
// on x86-64): a quad measured in vector lanes of the GCC/Clang vector
// extensions, the decoder's samples per sample.
#include <bit>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#define MALLAT_HT_ISA generic
#define MALLAT_HT_ISA_NAME "generic"
#define MALLAT_HT_KERNEL

#include "entropy/ht/cpu/cleanup_encoder_kernel.h"

namespace mallat::entropy::ht::cpu::generic {

// Quad q of the columns top[2 q..2 q + 1], bottom[2 q..2 q + 1] measured
// in vector lanes (as measure_quad): the exponent E = bit width of
// 2 mu - 1 = bit width of mu - 1, plus 1, read from the exponent field of
// mu - 1 as a double (exact: below 2^31).
inline void measure_whole_quad(const int32_t* top, const int32_t* bottom, int64_t q, int shift,
                               const MeasuredQuads& m) {
  using I32x4 = int32_t __attribute__((vector_size(16)));
  using U32x4 = uint32_t __attribute__((vector_size(16)));
  using I64x4 = int64_t __attribute__((vector_size(32)));
  using U64x4 = uint64_t __attribute__((vector_size(32)));
  using F64x4 = double __attribute__((vector_size(32)));
  const int64_t x = 2 * q;
  // rho's order: top left, bottom left, top right, bottom right.
  const I32x4 s = {top[x], bottom[x], top[x + 1], bottom[x + 1]};
  const I32x4 negative = s < 0;  // -1 or 0 per lane
  const auto magnitude = __builtin_bit_cast(U32x4, (s ^ negative) - negative);
  const U32x4 mu = magnitude >> shift;
  const auto significant = __builtin_bit_cast(U32x4, mu != 0);
  const U32x4 below = mu - 1;  // mu - 1 (all ones where insignificant: masked below)
  const auto as_double = __builtin_convertvector(__builtin_bit_cast(I32x4, below), F64x4);
  const I64x4 exponent = __builtin_bit_cast(I64x4, (__builtin_bit_cast(U64x4, as_double) >> 52) & 0x7FF) - 1022;
  const I64x4 width = (exponent > 0 ? exponent : I64x4{}) + 1;  // bit width of mu - 1 (0 for 0), plus 1
  const U32x4 e = __builtin_convertvector(width, U32x4) & significant;
  const U32x4 v = ((below << 1) | (__builtin_bit_cast(U32x4, negative) & 1)) & significant;
#if defined(__SSE2__)
  m.rho[q] = static_cast<uint8_t>(_mm_movemask_ps(__builtin_bit_cast(__m128, significant)));
#else
  const U32x4 bits = significant & U32x4{1, 2, 4, 8};
  m.rho[q] = static_cast<uint8_t>(bits[0] | bits[1] | bits[2] | bits[3]);
#endif
  // The largest exponent: lanes against their swapped halves, then pairs.
  U32x4 a = e;
  U32x4 b = __builtin_shufflevector(a, a, 2, 3, 0, 1);
  a = a > b ? a : b;
  b = __builtin_shufflevector(a, a, 1, 0, 3, 2);
  a = a > b ? a : b;
  m.e_max[q] = static_cast<uint8_t>(a[0]);
  for (int n = 0; n < 4; ++n) m.e[4 * q + n] = static_cast<uint8_t>(e[n]);
  std::memcpy(m.v + 4 * q, &v, sizeof v);
  m.e_bottom[x] = static_cast<uint8_t>(e[1]);
  m.e_bottom[x + 1] = static_cast<uint8_t>(e[3]);
}

struct Steps {
  static constexpr bool kVector = false, kPairs = false, kRowCodes = false, kBitDeposit = false;
  static int64_t measure_quads(const int32_t* top, const int32_t* bottom, int64_t quads, int shift,
                               const MeasuredQuads& m) {
    for (int64_t q = 0; q < quads; ++q) measure_whole_quad(top, bottom, q, shift, m);
    return quads;
  }
};

}  // namespace mallat::entropy::ht::cpu::generic

#include "entropy/ht/cpu/cleanup_kernels_isa.h"
