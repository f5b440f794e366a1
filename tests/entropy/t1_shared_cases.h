// Code-blocks for holding the shared Tier-1 encoder (entropy/
// entropy/ebcot/shared_encoder.h) to encode_code_block, on the CPU
// (t1_shared_test.cc) and the GPU (tests/entropy_cuda): Laplacian blocks of
// several scales, every orientation and mode-switch combination, odd and
// extreme sizes, all-zero blocks, Mb up to 31 and fraction bits; and the
// comparison, every byte, pass length and distortion bit for bit.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "entropy/ebcot/ebcot.h"
#include "entropy/t1_encode_batch.h"
#include "entropy/ebcot/shared_encoder.h"
#include "tests/entropy/laplacian_block.h"

namespace mallat::entropy::testing {

struct SharedCase {
  int width = 0, height = 0;
  std::vector<int32_t> samples;
  BandOrientation orientation = BandOrientation::kLL;
  int num_bitplanes = 0;
  CodeBlockStyle style;
  int fraction_bits = 0;
  int pass_limit = 0;  // SharedT1Block::pass_limit

  SharedT1Block block() const {
    return {samples.data(), width, height, width, orientation, num_bitplanes, style, fraction_bits, pass_limit};
  }
  std::string name() const {
    return std::to_string(width) + "x" + std::to_string(height) + " orientation " +
           std::to_string(static_cast<int>(orientation)) + " Mb " + std::to_string(num_bitplanes) + " F " +
           std::to_string(fraction_bits) + " style " + std::to_string(style.to_byte());
  }
};

// Laplacian samples of scale `b`, clamped below 2^bits.
inline SharedCase laplacian_case(int w, int h, double b, unsigned seed, int bits) {
  SharedCase c;
  c.width = w;
  c.height = h;
  c.samples = laplacian_block(b, seed, static_cast<size_t>(w) * h);
  const int64_t limit = (int64_t{1} << bits) - 1;
  for (int32_t& v : c.samples) v = static_cast<int32_t>(std::clamp<int64_t>(v, -limit, limit));
  c.num_bitplanes = bits;
  return c;
}

// Every mode-switch combination (style bytes 0..63) and orientation on
// 64x64 blocks of a few scales; the sizes and extremes on a subset of styles.
inline std::vector<SharedCase> shared_cases() {
  std::vector<SharedCase> cases;
  unsigned seed = 1;
  const double scales[] = {0.3, 4, 32, 700};
  for (int byte = 0; byte < 64; ++byte) {
    for (int o = 0; o < 4; ++o) {
      for (double b : scales) {
        SharedCase c = laplacian_case(64, 64, b, seed++, 16);
        c.orientation = static_cast<BandOrientation>(o);
        c.style = CodeBlockStyle::from_byte(static_cast<uint8_t>(byte));
        cases.push_back(std::move(c));
      }
    }
  }
  const int sizes[][2] = {{1, 1}, {3, 17}, {17, 3}, {1024, 1}, {1, 1024}, {1024, 4}, {4, 1024}, {32, 128},
                          {128, 32}, {819, 5}, {5, 819}, {63, 65}, {2, 7}};
  const uint8_t styles[] = {0, 1, 2, 4, 8, 16, 32, 0x3F, 0x11, 0x0D};
  for (const auto& size : sizes) {
    for (uint8_t byte : styles) {
      for (int o = 0; o < 4; ++o) {
        SharedCase c = laplacian_case(size[0], size[1], 12, seed++, 12);
        c.orientation = static_cast<BandOrientation>(o);
        c.style = CodeBlockStyle::from_byte(byte);
        cases.push_back(std::move(c));
      }
    }
  }
  for (uint8_t byte : styles) {
    // All zero: no passes, P = Mb.
    SharedCase zero = laplacian_case(64, 64, 1, seed++, 9);
    std::fill(zero.samples.begin(), zero.samples.end(), 0);
    zero.style = CodeBlockStyle::from_byte(byte);
    cases.push_back(std::move(zero));
    // High Mb: magnitudes up to 2^31 - 1, 91 passes.
    SharedCase high = laplacian_case(64, 64, 3e8, seed++, 31);
    high.samples[7] = 0x7FFFFFFF;
    high.samples[100] = -0x7FFFFFFF;
    high.style = CodeBlockStyle::from_byte(byte);
    high.orientation = BandOrientation::kHH;
    cases.push_back(std::move(high));
    // Fraction bits: the top Mb planes coded, distortions from all of them.
    for (int f : {1, 5, 13}) {
      SharedCase frac = laplacian_case(32, 32, 40000, seed++, 18);
      frac.num_bitplanes = 18 - f;
      frac.fraction_bits = f;
      frac.style = CodeBlockStyle::from_byte(byte);
      frac.orientation = BandOrientation::kLH;
      cases.push_back(std::move(frac));
    }
  }
  return cases;
}

// What encode_code_block makes of case `c`: the reference the shared,
// formed and device coders are held to.
inline Result<EncodedCodeBlock> cpu_encoding(const SharedCase& c) {
  return encode_code_block(PlaneView<const int32_t>{c.samples.data(), c.width, c.height, c.width}, c.orientation,
                           c.num_bitplanes, c.style, c.fraction_bits);
}

// The shared encoder's successful output as encode_code_block returns it
// (the device batch's conversion, entropy/t1_encode_batch.h).
inline EncodedCodeBlock to_encoded(const SharedT1Result& r, const uint8_t* buffer, const CodingPass* passes) {
  Result<EncodedCodeBlock> e = encoded_from_slot(r, passes, buffer, r.length + 2);
  EXPECT_TRUE(e.ok()) << e.status().message();
  return e.ok() ? *std::move(e) : EncodedCodeBlock{};
}

inline ::testing::AssertionResult same_encoding(const EncodedCodeBlock& want, const EncodedCodeBlock& got) {
  if (want.zero_bitplanes != got.zero_bitplanes || want.num_passes != got.num_passes) {
    return ::testing::AssertionFailure() << "zero bit-planes " << got.zero_bitplanes << " (want "
                                         << want.zero_bitplanes << "), passes " << got.num_passes
                                         << " (want " << want.num_passes << ")";
  }
  if (want.data != got.data) {
    size_t at = 0;
    while (at < want.data.size() && at < got.data.size() && want.data[at] == got.data[at]) ++at;
    return ::testing::AssertionFailure() << "bytes differ at " << at << " of " << got.data.size()
                                         << " (want " << want.data.size() << ")";
  }
  for (int i = 0; i < want.num_passes; ++i) {
    const CodingPass& a = want.passes[i];
    const CodingPass& b = got.passes[i];
    if (a.cumulative_length != b.cumulative_length || a.terminated != b.terminated ||
        std::bit_cast<uint64_t>(a.distortion_decrease) != std::bit_cast<uint64_t>(b.distortion_decrease)) {
      return ::testing::AssertionFailure()
             << "pass " << i << ": length " << b.cumulative_length << " (want " << a.cumulative_length
             << "), terminated " << b.terminated << " (want " << a.terminated << "), distortion "
             << b.distortion_decrease << " (want " << a.distortion_decrease << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace mallat::entropy::testing
