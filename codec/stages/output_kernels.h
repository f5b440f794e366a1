// The row kernels of the output stage (tile_output.h): components 0..2
// through the inverse RCT (G.2) or ICT (G.3), or one component as it is,
// then the inverse DC level shift and the clamp (G.1.2); into bytes
// (write_tile_bytes: each value narrowed to a byte and written every
// `stride` bytes of `out`, a pixel's components interleaved:
// out[stride * i + c]) or into rows of samples (write_tile).
//
// The byte kernels take the ranges of unsigned components of 1 to 8 bits
// (fits_bytes), so that every clamped value is a byte; the float kernels
// take components of at most 24 bits (round_shift_and_clamp's). The
// host's kernels (byte_kernels, sample_kernels) take AVX2 loops where the
// host has AVX2 (the byte kernels where the stride is the common one: 3 for
// the transforms, 1 for one component), and the plain loops for the rest of
// the row or where it has not: the plain loops (plain_byte_kernels,
// plain_sample_kernels) are the reference the tests hold the others to, bit
// for bit.
#pragma once

#include <cstdint>

#include "codec/stages/colour_rules.h"

namespace mallat::codec {

struct ByteKernels {
  // The reversible path: rct_inverse_sample, then shift_and_clamp.
  void (*rct)(const int32_t* y0, const int32_t* y1, const int32_t* y2, uint8_t* out, int64_t n, int stride,
              const SampleRange r[3]);
  // The irreversible path: ict_inverse_sample, then round_shift_and_clamp.
  void (*ict)(const float* y0, const float* y1, const float* y2, uint8_t* out, int64_t n, int stride,
              const SampleRange r[3]);
  // One component: shift_and_clamp (integers), round_shift_and_clamp (floats).
  void (*ints)(const int32_t* src, uint8_t* out, int64_t n, int stride, const SampleRange& r);
  void (*floats)(const float* src, uint8_t* out, int64_t n, int stride, const SampleRange& r);
};

// The same steps into three rows of samples (o0..o2), or one.
struct SampleKernels {
  void (*rct)(const int32_t* y0, const int32_t* y1, const int32_t* y2, int32_t* o0, int32_t* o1, int32_t* o2,
              int64_t n, const SampleRange r[3]);
  void (*ict)(const float* y0, const float* y1, const float* y2, int32_t* o0, int32_t* o1, int32_t* o2, int64_t n,
              const SampleRange r[3]);
  void (*ints)(const int32_t* src, int32_t* out, int64_t n, const SampleRange& r);
  void (*floats)(const float* src, int32_t* out, int64_t n, const SampleRange& r);
};

// This host's: the AVX2 loops where it has AVX2.
const ByteKernels& byte_kernels();
const SampleKernels& sample_kernels();
// The plain loops alone.
const ByteKernels& plain_byte_kernels();
const SampleKernels& plain_sample_kernels();

}  // namespace mallat::codec
