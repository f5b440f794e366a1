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
#include "entropy/ht/shared_refinement.h"

namespace mallat::entropy::ht {

// The instruction sets the fast cleanup coders are built for
// (entropy/ht/cpu/cleanup_kernels.h; chosen at run time, so a generic
// x86-64 build stays portable): kAvx2 is AVX2 with BMI1/BMI2, LZCNT and
// POPCNT; kAvx512 adds AVX-512 F/CD/BW/VL. kBest: the one named by the
// environment variable MALLAT_HT_ISA (generic, avx2 or avx512) where set,
// else the best this CPU has. The outputs do not depend on it.
enum class CleanupIsa { kBest, kGeneric, kAvx2, kAvx512 };
bool cleanup_isa_available(CleanupIsa isa);
// kBest resolved; an instruction set this build or CPU lacks resolves to
// the best it has below that one.
CleanupIsa resolve_cleanup_isa(CleanupIsa isa);
// "generic", "avx2" or "avx512": the resolved instruction set's name.
const char* cleanup_isa_name(CleanupIsa isa);

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

// The values a cleanup at `shift` codes with its lowered samples one index
// lower (entropy/ht/exponent_bounds.h) and what that changes in the passes'
// decreases: lower_exponent_bounds at `share` in one pass over the block, its quads
// tested in vector lanes of `isa` as the values are written. Where `any`,
// `coded` (c.width x c.height, rows of c.width) holds the values; else it
// is not all written and the passes code `c`. The same values and sums as
// apply_lowering of the plain rule's mask
// (tests/entropy/ht_exponent_bounds_test.cc).
LoweringEffect lower_exponent_bounds_cpu(PlaneView<const int32_t> c, int shift, bool refinement, int share,
                                         int32_t* coded, CleanupIsa isa = CleanupIsa::kBest);
// `c` with the samples `lowered` names one index lower at `shift`, into
// `coded` (as lower_exponent_bounds_cpu's): the plain way.
void apply_lowering(PlaneView<const int32_t> c, int shift, const LoweredSamples& lowered, int32_t* coded);

// The refinement segment: SigProp (forward from its start) and MagRef
// (backward from its end) for plane `shift`, the cleanup having coded the
// planes above it (entropy/ht/shared_refinement.h, which says how).
RefinementCoded encode_refinement(PlaneView<const int32_t> coefficients, int shift, bool vertical_causal,
                                  std::vector<uint8_t>& segment);

// Applies `passes` (1: SigProp, 2: SigProp and MagRef) of a refinement
// segment at plane `plane` to a block the cleanup decoded (its non-zero
// samples are the significant ones).
void decode_refinement(std::span<const uint8_t> segment, int passes, int plane, bool vertical_causal,
                       PlaneView<int32_t> samples);

// The plain versions encode_refinement and decode_refinement
// (entropy/ht/refinement_coder.cc) are tested against: flags per sample
// (entropy/ht/refinement.cc).
RefinementCoded encode_refinement_reference(PlaneView<const int32_t> coefficients, int shift, bool vertical_causal,
                                            std::vector<uint8_t>& segment);
void decode_refinement_reference(std::span<const uint8_t> segment, int passes, int plane, bool vertical_causal,
                                 PlaneView<int32_t> samples);

}  // namespace mallat::entropy::ht
