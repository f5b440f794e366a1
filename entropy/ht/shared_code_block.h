// One HT code-block (15444-15) encoded or decoded as one plain source for
// the CPU and the GPU (common/host_device.h): the shared cleanup and
// refinement coders put together as encode_ht_code_block and
// decode_ht_code_block (entropy/ht/code_block.cc) put the CPU's together,
// on the plain data of a Tier-1 device batch (entropy/ebcot/shared_encoder.h,
// shared_decoder.h: the same jobs, slots and results as EBCOT's, so one
// batch layout, packing and finishing serve both coders). The tests hold it
// to the CPU coder: the same bytes, passes and distortions (to the bit), the
// same samples and info (tests/entropy/ht_shared_test.cc on the CPU in CI,
// tests/entropy_cuda on a device).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "common/host_device.h"
#include "common/plane_view.h"
#include "entropy/ebcot/internal.h"
#include "entropy/ebcot/shared_decoder.h"
#include "entropy/ebcot/shared_encoder.h"
#include "entropy/ht/shared_cleanup_decoder.h"
#include "entropy/ht/shared_cleanup_encoder.h"
#include "entropy/ht/shared_refinement.h"

namespace mallat::entropy {

// A thread's working state for one HT block, either direction (about 12 KB).
struct HtBlockState {
  ht::CleanupEncodeState cleanup;
  ht::RefinementState refinement;
  ht::LoweredSamples lowered;
};

// Whether an HT block's cleanup at `shift` lowers exponent bounds
// (entropy/ht/exponent_bounds.h): under a rate or quality target, where the
// caller asks for the passes' distortions, on indices with fraction bits
// below them (the irreversible path: the reversible path's plane 0 stays
// lossless), and where some index at the plane reaches 2 (`all`, the OR of
// the block's magnitudes: below that no quad can be lowered).
MALLAT_HD inline bool ht_lowers_exponent_bounds(bool distortions, int fraction_bits, uint32_t all, int shift) {
  return distortions && fraction_bits > 0 && (all >> shift) >= 2;
}

// The HT settings of one block to encode (BlockToEncode's ht_* fields).
struct HtBlockSettings {
  int cleanup_plane = 0;
  bool refinement = false;
  bool distortions = true;
};

// The output slot an HT block of `samples` samples and Mb + F = `bits` gets:
// the scratch byte before the segments (SharedT1Output), the cleanup at
// its worst and the refinement segment. A block never overflows it.
MALLAT_HD constexpr uint32_t ht_slot_capacity(uint32_t samples, int bits) {
  return 1 + ht::cleanup_capacity(samples, bits) + ht::refinement_capacity(samples);
}

namespace detail {

// The cleanup's decrease from an all-zero block: m^2 less the error left
// (ht::squared_error) of every sample significant at `shift`. In integers
// while no sum can overflow (magnitudes below 2^24: squares below 2^48, at
// most 2^12 of them), else in doubles.
template <class Sum>
MALLAT_HD Sum ht_cleanup_decrease_in(PlaneView<const int32_t> c, int shift) {
  Sum sum = 0;
  const uint32_t low = (uint32_t{1} << shift) - 1;
  const int64_t half = shift > 0 ? int64_t{1} << (shift - 1) : 0;
  for (int64_t y = 0; y < c.height; ++y) {
    const int32_t* row = c.row(y);
    if constexpr (std::is_integral_v<Sum>) {
      // In integers, without a branch and with products of 32-bit values
      // (|e| <= half <= m), so that the CPU's loop runs in vector lanes.
      const auto h = static_cast<uint32_t>(half);
      for (int64_t x = 0; x < c.width; ++x) {
        const uint32_t m = ht::detail::magnitude_of(row[x]);
        const uint32_t a = m & low;
        const uint32_t e = a >= h ? a - h : h - a;
        const uint64_t d = uint64_t{m} * m - uint64_t{e} * e;
        sum += static_cast<Sum>(d & (uint64_t{0} - static_cast<uint64_t>((m >> shift) != 0)));
      }
    } else {
      for (int64_t x = 0; x < c.width; ++x) {
        const uint32_t m = ht::detail::magnitude_of(row[x]);
        const int64_t e = static_cast<int64_t>(m & low) - half;
        const Sum d = static_cast<Sum>(static_cast<int64_t>(uint64_t{m} * m)) - static_cast<Sum>(e * e);
        sum += (m >> shift) != 0 ? d : Sum{0};
      }
    }
  }
  return sum;
}

}  // namespace detail

// The cleanup's decrease at `shift` of a block whose magnitudes OR to `all`.
MALLAT_HD inline double ht_cleanup_decrease(PlaneView<const int32_t> c, int shift, uint32_t all) {
  if (all < (uint32_t{1} << 24)) return static_cast<double>(detail::ht_cleanup_decrease_in<int64_t>(c, shift));
  return detail::ht_cleanup_decrease_in<double>(c, shift);
}

// encode_ht_code_block on plain data: the segments to out.buffer[1 ..], up
// to three passes to out.passes. A cleanup plane outside 0..Mb - 1, or
// refinement at plane 0, is kBadBitPlanes (encode_ht_code_block's
// invalid_argument; the host's batch layout rejects them first).
MALLAT_HD inline SharedT1Result encode_ht_block_shared(const SharedT1Block& block, const HtBlockSettings& settings,
                                                       HtBlockState& state, const SharedT1Output& out,
                                                       const ht::SharedVlcTables& tables) {
  SharedT1Result result;
  const int w = block.width, h = block.height;
  if (w < 1 || h < 1 || w > kMaxCodeBlockSide || h > kMaxCodeBlockSide || w * h > kMaxCodeBlockSamples) {
    result.status = SharedT1Status::kBadShape;
    return result;
  }
  const int mb = block.num_bitplanes, f = block.fraction_bits, p = settings.cleanup_plane;
  if (mb < 0 || f < 0 || mb + f > kMaxBitPlanes || p < 0 || (mb > 0 && p >= mb) ||
      (settings.refinement && p == 0)) {
    result.status = SharedT1Status::kBadBitPlanes;
    return result;
  }
  const PlaneView<const int32_t> c{block.coefficients, w, h, block.stride};
  uint32_t all = 0;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) all |= ht::detail::magnitude_of(c.row(y)[x]);
  }
  if (mb + f < 32 && (all >> (mb + f)) != 0) {
    result.status = SharedT1Status::kMagnitudeTooLarge;
    return result;
  }
  const int shift = p + f;
  if (mb == 0 || (all >> shift) == 0) {
    result.zero_bitplanes = static_cast<int8_t>(mb);
    return result;
  }
  result.zero_bitplanes = static_cast<int8_t>(mb - 1 - p);
  ht::BoundedBytes segment(out.buffer + 1, out.capacity > 0 ? out.capacity - 1 : 0);
  const ht::LoweringEffect lowering = ht_lowers_exponent_bounds(settings.distortions, f, all, shift)
                                          ? ht::lower_exponent_bounds(c, shift, settings.refinement, state.lowered)
                                          : ht::LoweringEffect{};
  const ht::LoweredSamples* lowered = lowering.any ? &state.lowered : nullptr;
  ht::encode_cleanup_shared(c, shift, tables, state.cleanup, segment, lowered);
  const uint32_t lcup = segment.size();
  const double keep = settings.distortions ? 1.0 : 0.0;
  double cleanup_decrease = settings.distortions ? ht_cleanup_decrease(c, shift, all) : 0.0;
  if (lowering.any) cleanup_decrease += lowering.cleanup;
  out.passes[0] = {lcup, true, cleanup_decrease};
  int passes = 1;
  if (settings.refinement) {
    ht::BoundedBytes refinement(out.buffer + 1 + lcup, segment.overflow() ? 0 : out.capacity - 1 - lcup);
    const ht::RefinementCoded coded = ht::encode_refinement_shared(c, shift - 1, block.style.vertical_causal,
                                                                   refinement, state.refinement, lowered);
    if (refinement.overflow()) segment.fail();
    const double magref_decrease = lowering.any ? coded.magref_decrease + lowering.magref : coded.magref_decrease;
    out.passes[1] = {lcup + coded.sigprop_length, false, keep * coded.sigprop_decrease};
    out.passes[2] = {lcup + refinement.size(), true, keep * magref_decrease};
    passes = 3;
  }
  if (segment.overflow()) {
    result.status = SharedT1Status::kOutputOverflow;
    return result;
  }
  result.length = out.passes[passes - 1].cumulative_length;
  result.num_passes = static_cast<int16_t>(passes);
  result.exact_passes = result.num_passes;  // HT blocks are never cut
  for (int i = 0; i < passes && f > 0; ++i) {
    out.passes[i].distortion_decrease = detail::scale_distortion(out.passes[i].distortion_decrease, f);
  }
  return result;
}

// decode_ht_code_block on plain data, into `samples` (row after row, `stride`
// values apart): the last HT set, its cleanup pass and the refinement
// passes after it, from the segments the job names. Parameters
// decode_ht_code_block rejects are kBadParameters, nothing written.
MALLAT_HD inline SharedT1DecodeResult decode_ht_block_shared(const SharedT1DecodeBlock& block, HtBlockState& state,
                                                             int32_t* samples, ptrdiff_t stride,
                                                             const ht::SharedVlcTables& tables) {
  SharedT1DecodeResult result;
  const int w = block.width, h = block.height;
  const int planes = block.num_bitplanes - block.zero_bitplanes;
  if (bad_decode_parameters(block)) {
    result.status = SharedT1DecodeStatus::kBadParameters;
    return result;
  }
  const PlaneView<int32_t> out{samples, w, h, stride};
  if (block.num_passes == 0) {
    ht::detail::clear(out);
    result.lowest_plane = static_cast<int8_t>(planes);
    return result;
  }
  const int p = planes - 1 - (block.num_passes - 1) / 3;
  int refinement_passes = (block.num_passes - 1) % 3;
  // With no lengths given, one segment holds everything; a refinement pass
  // without a segment of its own (corrupt headers): the cleanup alone.
  const uint32_t whole = block.length;
  const uint32_t* lengths = block.num_segments > 0 ? block.segment_lengths : &whole;
  const uint32_t count = block.num_segments > 0 ? block.num_segments : 1;
  if (count < 2) refinement_passes = 0;
  const uint32_t cleanup_index = count - (refinement_passes > 0 ? 2 : 1);
  uint64_t offset = 0;
  for (uint32_t i = 0; i < cleanup_index; ++i) offset += lengths[i];
  // Bytes [offset, offset + length) of the data, cut to what it has.
  const auto cut = [&](uint64_t from, uint64_t length, uint32_t& size) {
    const uint64_t begin = from < block.length ? from : block.length;
    const uint64_t end = from + length < block.length ? from + length : block.length;
    size = static_cast<uint32_t>(end - begin);
    return block.data + begin;
  };
  uint32_t cleanup_size = 0;
  const uint8_t* cleanup = cut(offset, lengths[cleanup_index], cleanup_size);
  result.lowest_plane = static_cast<int8_t>(p);
  if (!ht::decode_cleanup_shared(cleanup, cleanup_size, p, block.num_bitplanes - p, out, tables,
                                 state.cleanup.rows) ||
      refinement_passes == 0) {
    return result;
  }
  uint32_t refinement_size = 0;
  const uint8_t* refinement = cut(offset + lengths[cleanup_index], lengths[cleanup_index + 1], refinement_size);
  ht::decode_refinement_shared(refinement, refinement_size, refinement_passes, p - 1, block.style.vertical_causal,
                               out, state.refinement);
  result.lowest_plane = static_cast<int8_t>(p - 1);
  result.ended_in_significance_pass = refinement_passes == 1;
  return result;
}

}  // namespace mallat::entropy
