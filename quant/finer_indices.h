// Dead-zone indices of one step expressed at a finer step (E.1.1): an
// index q with F fraction bits at Delta places |y| in [|q|, |q| + 1) x
// Delta / 2^F, so at Delta / factor its index is about
// floor((|q| + 1/2) x factor), the interval's middle scaled. Rate control
// by estimates (codec/encoder/ht_rate.h) quantises once at the nominal
// steps and takes the finer steps' indices so, rather than quantising
// again: with F = 2 the middle is within an eighth of the finer interval.
#pragma once

#include <cstdint>

#include "common/plane_view.h"

namespace mallat::quant {

// One index at the finer step: 0 stays 0; the others as above, clipped to
// 2^magnitude_bits - 1 (the finer step's M_b + F), sign kept.
// In single precision (the magnitude converted, the half added, one
// multiply by the factor rounded to a float), eight to a vector.
inline int32_t finer_index(int32_t q, float factor, int32_t limit) {
  if (q == 0) return 0;
  const float m = (static_cast<float>(q < 0 ? -q : q) + 0.5f) * factor;
  const int32_t v = m >= static_cast<float>(limit) ? limit : static_cast<int32_t>(m);
  return q < 0 ? -v : v;
}

// Every index of `in` at the finer step into `out` (the same size; it may
// be `in` itself), `factor` rounded to a float: in AVX2 lanes where the
// CPU has them, else in SSE2's.
void finer_indices(PlaneView<const int32_t> in, double factor, int magnitude_bits, PlaneView<int32_t> out);
// The same, finer_index one index at a time: what finer_indices is tested
// against (the same indices).
void finer_indices_reference(PlaneView<const int32_t> in, double factor, int magnitude_bits,
                             PlaneView<int32_t> out);

}  // namespace mallat::quant
