// One HT code-block (15444-15): the passes of entropy/ht/passes.h put together,
// with the pass bookkeeping of entropy/ebcot/ebcot.h (lengths, distortions) and the decoder's
// choice of segments.
#include "entropy/ht/code_block.h"

#include <algorithm>
#include <string>
#include <vector>

#include "entropy/ht/cpu/cleanup_kernels.h"
#include "entropy/ht/exponent_bounds.h"
#include "entropy/ht/passes.h"
#include "entropy/ht/shared_code_block.h"
#include "entropy/ebcot/internal.h"

namespace mallat::entropy {
namespace {

// Bytes [offset, offset + length) of data, cut to what data has.
std::span<const uint8_t> segment_at(std::span<const uint8_t> data, uint64_t offset, uint64_t length) {
  const uint64_t begin = std::min<uint64_t>(offset, data.size());
  const uint64_t end = std::min<uint64_t>(offset + length, data.size());
  return data.subspan(begin, end - begin);
}

}  // namespace

Result<EncodedCodeBlock> encode_ht_code_block(PlaneView<const int32_t> coefficients, int num_bitplanes,
                                              int fraction_bits, const HtEncodeSettings& settings) {
  MALLAT_RETURN_IF_ERROR(detail::check_code_block_shape(coefficients.width, coefficients.height, num_bitplanes));
  MALLAT_RETURN_IF_ERROR(detail::check_fraction_bits(num_bitplanes, fraction_bits));
  MALLAT_ASSIGN_OR_RETURN(const uint32_t all, detail::magnitude_or(coefficients, num_bitplanes + fraction_bits));
  const int p = settings.cleanup_plane;
  if (p < 0 || (num_bitplanes > 0 && p >= num_bitplanes)) {
    return invalid_argument("HT cleanup plane " + std::to_string(p) + " outside 0.." +
                            std::to_string(num_bitplanes - 1) + " (Mb = " + std::to_string(num_bitplanes) + ")");
  }
  if (settings.refinement && p == 0) {
    return invalid_argument("HT refinement passes need a cleanup plane above 0");
  }
  EncodedCodeBlock out;
  const int shift = p + fraction_bits;
  if (num_bitplanes == 0 || (all >> shift) == 0) {
    out.zero_bitplanes = num_bitplanes;
    return out;
  }
  out.zero_bitplanes = num_bitplanes - 1 - p;
  // The values coded: the indices, or their copy with the lowered samples
  // one index lower (entropy/ht/exponent_bounds.h), for the fast coders.
  ht::LoweringEffect lowering;
  PlaneView<const int32_t> coded_values = coefficients;
  if (ht_lowers_exponent_bounds(settings.distortions, fraction_bits, all, shift)) {
    thread_local std::vector<int32_t> lowered(kMaxCodeBlockSamples);
    const int64_t w = coefficients.width, h = coefficients.height;
    const int share =
        settings.lowering_share >= 0 ? settings.lowering_share : ht::default_lowering_share(settings.refinement);
    lowering = ht::lower_exponent_bounds_cpu(coefficients, shift, settings.refinement, share, lowered.data());
    if (lowering.any) coded_values = {lowered.data(), w, h, w};
  }
  ht::encode_cleanup(coded_values, shift, out.data);
  const auto lcup = static_cast<uint32_t>(out.data.size());
  double cleanup_decrease = settings.distortions ? ht_cleanup_decrease_cpu(coefficients, shift, all) : 0.0;
  if (lowering.any) cleanup_decrease += lowering.cleanup;
  out.passes.push_back({lcup, true, cleanup_decrease});
  out.num_passes = 1;
  if (settings.refinement) {
    thread_local std::vector<uint8_t> refinement;
    const ht::RefinementCoded coded =
        ht::encode_refinement(coded_values, shift - 1, settings.vertical_causal, refinement);
    out.data.insert(out.data.end(), refinement.begin(), refinement.end());
    const auto total = static_cast<uint32_t>(out.data.size());
    const double keep = settings.distortions ? 1.0 : 0.0;
    const double magref_decrease = lowering.any ? coded.magref_decrease + lowering.magref : coded.magref_decrease;
    out.passes.push_back({lcup + coded.sigprop_length, false, keep * coded.sigprop_decrease});
    out.passes.push_back({total, true, keep * magref_decrease});
    out.num_passes = 3;
  }
  detail::scale_distortions(out, fraction_bits);
  return out;
}

Result<DecodedCodeBlockInfo> decode_ht_code_block(const CodeBlockToDecode& block, PlaneView<int32_t> out) {
  MALLAT_RETURN_IF_ERROR(detail::check_decode_parameters(block, out.width, out.height));
  const int planes = block.num_bitplanes - block.zero_bitplanes;
  DecodedCodeBlockInfo info;
  if (block.num_passes == 0) {
    for (int64_t y = 0; y < out.height; ++y) std::fill(out.row(y), out.row(y) + out.width, 0);
    info.lowest_plane = planes;
    return info;
  }
  // The last HT set: its cleanup pass and the refinement passes after it.
  const int p = planes - 1 - (block.num_passes - 1) / 3;
  int refinement_passes = (block.num_passes - 1) % 3;
  const uint32_t whole = static_cast<uint32_t>(std::min<size_t>(block.data.size(), UINT32_MAX));
  const std::span<const uint32_t> lengths =
      block.segment_lengths.empty() ? std::span<const uint32_t>(&whole, 1) : block.segment_lengths;
  // A refinement pass without a segment of its own (corrupt headers): the
  // cleanup alone.
  if (lengths.size() < 2) refinement_passes = 0;
  const size_t cleanup_index = lengths.size() - (refinement_passes > 0 ? 2 : 1);
  uint64_t offset = 0;
  for (size_t i = 0; i < cleanup_index; ++i) offset += lengths[i];
  const std::span<const uint8_t> cleanup = segment_at(block.data, offset, lengths[cleanup_index]);
  info.lowest_plane = p;
  if (!ht::decode_cleanup(cleanup, p, block.num_bitplanes - p, out) || refinement_passes == 0) return info;
  const std::span<const uint8_t> refinement =
      segment_at(block.data, offset + lengths[cleanup_index], lengths[cleanup_index + 1]);
  ht::decode_refinement(refinement, refinement_passes, p - 1, block.style.vertical_causal, out);
  info.lowest_plane = p - 1;
  info.ended_in_significance_pass = refinement_passes == 1;
  return info;
}

}  // namespace mallat::entropy
