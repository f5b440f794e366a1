// The HT block coder of ISO/IEC 15444-15 for one code-block: a cleanup pass
// that codes every magnitude bit from the top down to a plane p in one go
// (MagSgn, MEL and VLC streams), optionally followed by SigProp and MagRef
// for plane p - 1. The same data types as Part 1's Tier-1 (entropy/ebcot/ebcot.h).
#pragma once

#include <cstdint>

#include "common/plane_view.h"
#include "common/status.h"
#include "entropy/ebcot/ebcot.h"
#include "entropy/ht/passes.h"

namespace mallat::entropy {

struct HtEncodeSettings {
  // The cleanup pass codes |q| >> cleanup_plane for every sample;
  // 0 <= cleanup_plane < Mb.
  int cleanup_plane = 0;
  // Also code SigProp and MagRef for cleanup_plane - 1 (needs
  // cleanup_plane >= 1).
  bool refinement = false;
  // Code-block style bit 3: SigProp ignores the stripe below.
  bool vertical_causal = false;
  // false: every pass's distortion_decrease is left 0 (the caller sends
  // every pass: no rate target).
  bool distortions = true;
  // Under a rate target, the share of the exponent bounds' lowering in
  // tenths of a step^2 a bit (entropy/ht/exponent_bounds.h); negative: the
  // default for `refinement`.
  int lowering_share = -1;
};

// Encodes one HT code-block. Inputs as encode_code_block (entropy/ebcot/ebcot.h): indices
// with `fraction_bits` F bits below them, magnitudes below 2^(Mb + F),
// Mb + F <= 31, sizes of A.6.1.
//
// The result: `data` is the cleanup segment, then the refinement segment if
// any; zero_bitplanes = Mb - 1 - cleanup_plane, so a decoder's rule puts the
// cleanup at that plane; num_passes 1, or 3 with refinement, or 0 when every
// |q| >> cleanup_plane is zero (zero_bitplanes is then Mb, as for Part 1).
// Passes: cleanup (cumulative length Lcup, terminated), SigProp (Lcup + the
// bytes of the refinement segment that carry SigProp: a valid cut, the
// decoder then reading SigProp alone), MagRef (Lcup + Lref, terminated).
// distortion_decrease as entropy/ebcot/ebcot.h defines it; the cleanup's from an all-zero
// block.
Result<EncodedCodeBlock> encode_ht_code_block(PlaneView<const int32_t> coefficients, int num_bitplanes,
                                              int fraction_bits, const HtEncodeSettings& settings = {});

// The cleanup's decrease at `shift` of a block whose magnitudes OR to `all`
// (ht_cleanup_decrease, entropy/ht/shared_code_block.h, which the device
// runs too): below 2^24 magnitudes, in the lanes of the cleanup coder's
// instruction set (AVX2 or AVX-512 where the CPU has them; `isa` as
// encode_cleanup's), the same integer sum in another order, so the same
// value (cleanup_decrease_cpu.cc); else the shared rule.
double ht_cleanup_decrease_cpu(PlaneView<const int32_t> c, int shift, uint32_t all,
                               ht::CleanupIsa isa = ht::CleanupIsa::kBest);

// Decodes one HT code-block: of `num_passes` N with segments S[0..n-1]
// (or the whole data when segment_lengths is empty), the last cleanup pass,
// at plane Mb - 1 - P - (N - 1) / 3, and the (N - 1) % 3 refinement passes
// after it: if (N - 1) % 3 == 0 S[n-1] is the cleanup segment, else S[n-2]
// is, and S[n-1] the refinement segment. Values as decode_code_block
// returns them; `info` likewise (lowest_plane the last pass's plane,
// ended_in_significance_pass when that is SigProp). Corrupt or truncated
// segments never fail: a cleanup segment that cannot be decoded gives an
// all-zero block. Errors are for impossible parameters only.
Result<DecodedCodeBlockInfo> decode_ht_code_block(const CodeBlockToDecode& block, PlaneView<int32_t> out);

}  // namespace mallat::entropy
