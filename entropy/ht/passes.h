// The HT block coder's passes (15444-15 Annex C), one function per pass
// and direction; entropy/ht/code_block.cc puts them together. Internal.
//
// Magnitudes at a plane: with `shift` s, a coefficient c stands for the
// magnitude |c| >> s (the encoder's inputs carry fraction bits below the
// index, so s = p + F for the cleanup at plane p).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/plane_view.h"

namespace mallat::entropy::ht {

// The instruction sets the fast cleanup coders are built for (chosen at run
// time, so a generic x86-64 build stays portable): kBmi2 adds BMI1/BMI2
// (shifts by a register without flags, bit-field extraction), LZCNT and
// POPCNT (and AVX2, which every CPU with BMI2 has, for the decoder's
// vector lanes); kBest the best this CPU has. The outputs do not depend on it.
enum class CleanupIsa { kBest, kGeneric, kBmi2 };
bool cleanup_isa_available(CleanupIsa isa);
CleanupIsa resolve_cleanup_isa(CleanupIsa isa);

// The cleanup segment (MagSgn, MEL, VLC and the 12-bit interface locator
// Scup) coding every magnitude |c| >> shift, which must be below 2^31 and
// not all zero. The block is at most 1024 wide and 4096 samples.
void encode_cleanup(PlaneView<const int32_t> coefficients, int shift, std::vector<uint8_t>& segment,
                    CleanupIsa isa = CleanupIsa::kBest);

// Decodes a cleanup segment at plane p into `out` (values at their true
// weight, every sample written). `planes_above` K = Mb - p bounds the
// magnitudes (below 2^K at plane p). Returns false when the segment is
// corrupt (Lcup < 2, Scup out of range, an exponent bound beyond K + 1);
// `out` is then all zero.
bool decode_cleanup(std::span<const uint8_t> segment, int p, int planes_above, PlaneView<int32_t> out,
                    CleanupIsa isa = CleanupIsa::kBest);

// The plain versions of encode_cleanup and decode_cleanup that the fast
// ones are tested against: the same bytes, the same samples and verdict.
void encode_cleanup_reference(PlaneView<const int32_t> coefficients, int shift, std::vector<uint8_t>& segment);
bool decode_cleanup_reference(std::span<const uint8_t> segment, int p, int planes_above, PlaneView<int32_t> out);

// The squared error of a magnitude m known down to plane k, reconstructed
// at the middle of its interval (E.1.1.2): m itself while m >> k is 0.
inline double squared_error(uint32_t m, int k) {
  if ((uint64_t{m} >> k) == 0) return static_cast<double>(uint64_t{m} * m);
  const int64_t e = static_cast<int64_t>(m & ((uint64_t{1} << k) - 1)) - (k > 0 ? int64_t{1} << (k - 1) : 0);
  return static_cast<double>(e * e);
}

// The refinement segment: SigProp (forward from its start) and MagRef
// (backward from its end) for plane `shift`, the cleanup having coded the
// planes above it.
struct RefinementCoded {
  // The bytes from the segment's start a decoder needs for SigProp alone
  // (never ending in 0xFF).
  uint32_t sigprop_length = 0;
  // Each pass's decrease of squared error in the coefficients' units.
  double sigprop_decrease = 0.0, magref_decrease = 0.0;
};
RefinementCoded encode_refinement(PlaneView<const int32_t> coefficients, int shift, bool vertical_causal,
                                  std::vector<uint8_t>& segment);
// The same bytes and decreases by columns of stripe nibbles, passing over
// columns with nothing to code (entropy/ht/refinement_encoder.cc); the one
// the block coder uses, encode_refinement its reference.
RefinementCoded encode_refinement_by_columns(PlaneView<const int32_t> coefficients, int shift,
                                             bool vertical_causal, std::vector<uint8_t>& segment);

// Applies `passes` (1: SigProp, 2: SigProp and MagRef) of a refinement
// segment at plane `plane` to a block the cleanup decoded (its non-zero
// samples are the significant ones).
void decode_refinement(std::span<const uint8_t> segment, int passes, int plane, bool vertical_causal,
                       PlaneView<int32_t> samples);

// The plain version decode_refinement (entropy/ht/refinement_decoder.cc) is tested
// against: flags per sample, the scan as the encoder's (entropy/ht/refinement.cc).
void decode_refinement_reference(std::span<const uint8_t> segment, int passes, int plane, bool vertical_causal,
                                 PlaneView<int32_t> samples);

}  // namespace mallat::entropy::ht
