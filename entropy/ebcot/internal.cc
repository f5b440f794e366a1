#include "entropy/ebcot/internal.h"

#include <cmath>
#include <string>

namespace mallat::entropy::detail {

Status check_code_block_shape(int64_t width, int64_t height, int num_bitplanes) {
  if (width < 1 || height < 1 || width > kMaxCodeBlockSide || height > kMaxCodeBlockSide ||
      width * height > kMaxCodeBlockSamples) {
    return invalid_argument("code-block of " + std::to_string(width) + "x" +
                            std::to_string(height) + " samples is outside A.6.1's limits");
  }
  if (num_bitplanes < 0 || num_bitplanes > kMaxBitPlanes) {
    return unsupported("code-block with " + std::to_string(num_bitplanes) +
                       " magnitude bit-planes (at most 31 supported)");
  }
  return Status::Ok();
}

Status check_decode_parameters(const CodeBlockToDecode& block, int64_t width, int64_t height) {
  MALLAT_RETURN_IF_ERROR(check_code_block_shape(width, height, block.num_bitplanes));
  const int planes = block.num_bitplanes - block.zero_bitplanes;
  if (block.zero_bitplanes < 0 || planes < 0) {
    return corrupt_data("code-block with " + std::to_string(block.zero_bitplanes) +
                        " zero bit-planes out of Mb = " + std::to_string(block.num_bitplanes));
  }
  const int max_passes = planes > 0 ? 3 * planes - 2 : 0;
  if (block.num_passes < 0 || block.num_passes > max_passes) {
    return corrupt_data("code-block with " + std::to_string(block.num_passes) +
                        " coding passes, more than its " + std::to_string(planes) +
                        " bit-planes allow");
  }
  return Status::Ok();
}

void finish_pass_lengths(EncodedCodeBlock& block) {
  finish_pass_lengths(block.passes.data(), static_cast<int>(block.passes.size()), block.data.data(),
                      static_cast<uint32_t>(block.data.size()));
}

namespace {

// The OR of the magnitudes, a plain loop the compiler runs in vector lanes;
// inlined into each instruction set's copy below.
[[gnu::always_inline]] inline uint32_t or_of_magnitudes(PlaneView<const int32_t> coefficients) {
  uint32_t all = 0;
  for (int64_t y = 0; y < coefficients.height; ++y) {
    const int32_t* row = coefficients.row(y);
    for (int64_t x = 0; x < coefficients.width; ++x) {
      const int32_t v = row[x];
      all |= v < 0 ? 0u - static_cast<uint32_t>(v) : static_cast<uint32_t>(v);
    }
  }
  return all;
}

#if defined(__x86_64__) && defined(__GNUC__)
// AVX2 has the lane-wise absolute value the baseline lacks.
[[gnu::target("avx2")]] uint32_t or_of_magnitudes_avx2(PlaneView<const int32_t> coefficients) {
  return or_of_magnitudes(coefficients);
}
#endif

}  // namespace

uint32_t magnitude_or_plain(PlaneView<const int32_t> coefficients) { return or_of_magnitudes(coefficients); }

Result<uint32_t> magnitude_or(PlaneView<const int32_t> coefficients, int num_bitplanes) {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  const uint32_t all = avx2 ? or_of_magnitudes_avx2(coefficients) : or_of_magnitudes(coefficients);
#else
  const uint32_t all = or_of_magnitudes(coefficients);
#endif
  if (num_bitplanes < 32 && (all >> num_bitplanes) != 0) {
    return invalid_argument("a coefficient needs more than Mb = " + std::to_string(num_bitplanes) +
                            " magnitude bits");
  }
  return all;
}

Status check_fraction_bits(int num_bitplanes, int fraction_bits) {
  if (fraction_bits < 0 || num_bitplanes + fraction_bits > kMaxBitPlanes)
    return invalid_argument("fraction bits " + std::to_string(fraction_bits) + " with Mb = " +
                            std::to_string(num_bitplanes) + " exceed 31 magnitude bits");
  return Status::Ok();
}

void scale_distortions(EncodedCodeBlock& block, int fraction_bits) {
  if (fraction_bits == 0) return;
  for (CodingPass& pass : block.passes) pass.distortion_decrease = scale_distortion(pass.distortion_decrease, fraction_bits);
}

}  // namespace mallat::entropy::detail

namespace mallat::entropy {

std::vector<uint32_t> codeword_segment_lengths(const EncodedCodeBlock& block, int num_passes) {
  std::vector<uint32_t> lengths;
  uint32_t previous = 0;
  for (int i = 0; i < num_passes && i < static_cast<int>(block.passes.size()); ++i) {
    const CodingPass& pass = block.passes[i];
    if (pass.terminated || i == num_passes - 1) {
      lengths.push_back(pass.cumulative_length - previous);
      previous = pass.cumulative_length;
    }
  }
  return lengths;
}

}  // namespace mallat::entropy
