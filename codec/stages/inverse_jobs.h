// The device runner's inverse steps as plain data and per-sample rules
// (device_decode_plan.h), which the kernels (codec/stages/cuda/
// inverse_kernels.cu) and the host's replay of them (the CI tests) both
// run: a code-block's decoded values into its plane's coefficients (E.1,
// H.1), and a plane's samples after the inverse DWT into the component's
// stored samples (G.1.2, G.2, G.3 and the clamp).
#pragma once

#include <cstdint>
#include <cstring>

#include "codec/stages/colour_rules.h"
#include "common/host_device.h"
#include "quant/reconstruction_rules.h"

namespace mallat::codec {

// One code-block: its `height` rows of `width` decoded values at `source`
// in Tier-1's batch (packed rows) to `target` in the planes' buffer (rows
// of `pitch`), reconstructed as dequantise_block would: the 5/3's as
// integers, the 9/7's as floats in the integers' place (tile_buffers.h).
// A block without passes is all zero (`zero`: nothing is read).
struct DequantiseJob {
  uint64_t source = 0;
  uint64_t target = 0;
  uint32_t pitch = 0;
  uint16_t width = 0;
  uint16_t height = 0;
  uint32_t result = 0;  // the block's Tier-1 result (lowest plane, last pass)
  int32_t roi_shift = 0;
  float half_step = 0.5f;  // 0.5f * Delta_b (reconstruct_irreversible's)
  uint8_t irreversible = 0;
  uint8_t zero = 0;
};

// The value a plane's buffer holds for decoded value `v` of `job`'s block:
// quant's rules (dequantize.h), the 9/7's float as its bits.
MALLAT_HD inline int32_t dequantised(const DequantiseJob& job, int32_t v, const quant::KnownPlanes& known) {
  if (job.zero) return 0;
  if (!job.irreversible) return quant::reconstructed_reversible(v, known, job.roi_shift);
  const float f = quant::reconstructed_irreversible(v, known, job.roi_shift, job.half_step);
  int32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

// One plane's samples after the inverse DWT (rows of `pitch` at `offset`
// in the planes' buffer, int32 for the 5/3, float for the 9/7) to its
// component's stored samples (stored_samples.h: `bytes` bytes each, packed
// rows of `width`, at `stored` bytes in the output buffer): the DC shift
// and clamp of `range`; `colour` planes 0..2 go through the inverse RCT or
// ICT first (output_pixel), each reading all three.
struct OutputPlane {
  uint64_t offset = 0;
  uint64_t stored = 0;
  int64_t pitch = 0;
  int64_t width = 0;
  int64_t height = 0;
  SampleRange range{0, 0, 0};
  uint8_t bytes = 1;
  uint8_t is_signed = 0;
  uint8_t irreversible = 0;
  uint8_t colour = 0;
  // Stored samples between a sample and the next of the plane: 1 packs the
  // plane; the component count interleaves the planes as a binary PNM's
  // raster (stored then names the component's byte in a pixel).
  uint8_t interleave = 1;
};

// write_tile's values of pixel (x, y) of the colour transform's planes
// 0..2 (tile_output.cc: the same rules in the same order): the inverse RCT
// or ICT, then each component's shift and clamp.
MALLAT_HD inline void output_pixel(const OutputPlane* planes, int64_t x, int64_t y, const int32_t* buffer,
                                   int32_t out[3]) {
  const uint64_t at = static_cast<uint64_t>(y * planes[0].pitch + x);
  if (!planes[0].irreversible) {
    int32_t i[3];
    rct_inverse_sample(buffer[planes[0].offset + at], buffer[planes[1].offset + at], buffer[planes[2].offset + at],
                       i[0], i[1], i[2]);
    for (int c = 0; c < 3; ++c) out[c] = shift_and_clamp(i[c], planes[c].range);
    return;
  }
  const auto* floats = reinterpret_cast<const float*>(buffer);
  float f[3] = {floats[planes[0].offset + at], floats[planes[1].offset + at], floats[planes[2].offset + at]};
  ict_inverse_sample(f[0], f[1], f[2]);
  for (int c = 0; c < 3; ++c) out[c] = round_shift_and_clamp(f[c], planes[c].range);
}

// write_tile's value of sample (x, y) of a plane outside the colour
// transform.
MALLAT_HD inline int32_t output_value(const OutputPlane& p, int64_t x, int64_t y, const int32_t* buffer) {
  const uint64_t at = p.offset + static_cast<uint64_t>(y * p.pitch + x);
  if (!p.irreversible) return shift_and_clamp(buffer[at], p.range);
  return round_shift_and_clamp(reinterpret_cast<const float*>(buffer)[at], p.range);
}

// A clamped sample stored as stored_samples.h's `widen` reads it back.
MALLAT_HD inline void store_sample(int32_t v, const OutputPlane& p, int64_t index, void* out) {
  auto* base = static_cast<unsigned char*>(out) + p.stored;
  index *= p.interleave;
  if (p.bytes == 1) {
    if (p.is_signed) {
      reinterpret_cast<int8_t*>(base)[index] = static_cast<int8_t>(v);
    } else {
      reinterpret_cast<uint8_t*>(base)[index] = static_cast<uint8_t>(v);
    }
  } else if (p.bytes == 2) {
    if (p.is_signed) {
      reinterpret_cast<int16_t*>(base)[index] = static_cast<int16_t>(v);
    } else {
      reinterpret_cast<uint16_t*>(base)[index] = static_cast<uint16_t>(v);
    }
  } else {
    reinterpret_cast<int32_t*>(base)[index] = v;
  }
}

}  // namespace mallat::codec
