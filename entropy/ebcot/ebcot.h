// Tier-1 coding of one code-block (Annex D): the three coding passes per
// bit-plane over the stripe-of-4 scan, with the MQ coder of Annex C (and raw
// coding under BYPASS).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/plane_view.h"
#include "common/status.h"
#include "entropy/code_block_style.h"

namespace mallat::entropy {

// Code-block limits of A.6.1: sides 4..1024 (smaller at image edges), at most
// 4096 samples. Magnitudes have at most 31 bits.
inline constexpr int kMaxCodeBlockSide = 1024;
inline constexpr int kMaxCodeBlockSamples = 4096;
inline constexpr int kMaxBitPlanes = 31;

// One coding pass as the rate allocator and Tier-2 see it.
struct CodingPass {
  // Bytes of EncodedCodeBlock::data from which a decoder recovers everything
  // up to and including this pass: the segment's end where `terminated`;
  // otherwise the shortest prefix that decodes the pass (shortest_truncation
  // in entropy/ebcot/mq_encoder.h; the bytes coded so far, a partial one included, for a
  // raw pass). Non-decreasing, and never ends on 0xFF.
  uint32_t cumulative_length = 0;
  // The pass ends a codeword segment (always the last pass; every pass under
  // TERMALL; under BYPASS the passes of Table D.9). Under TERMALL or BYPASS,
  // Tier-2 signals the lengths of terminated segments separately (B.10.7.2).
  bool terminated = false;
  // Decrease of the squared error, in units of the quantisation index, that
  // this pass brings when the decoder reconstructs each coefficient at the
  // middle of its known interval (E.1.1.2); summed over the block. Measured
  // against the coefficients as given: the indices, or the finer values
  // with fraction bits (encode_code_block).
  double distortion_decrease = 0.0;
};

struct EncodedCodeBlock {
  std::vector<uint8_t> data;   // all codeword segments, concatenated
  int zero_bitplanes = 0;      // P of B.10.5: Mb minus the planes needed
  int num_passes = 0;          // 3 * (Mb - P) - 2, or 0 for an all-zero block
  std::vector<CodingPass> passes;
  // A block a pass limit cut short (fewer passes than 3 * (Mb - P) - 2):
  // `cut`, and how many leading passes are those of coding every pass,
  // their bytes too (SharedT1Result::exact_passes; all of them where not
  // cut, whatever this holds).
  bool cut = false;
  int exact_passes = 0;
};

// Encodes one code-block. `num_bitplanes` is Mb (E-2) of the subband: every
// magnitude must be below 2^Mb, Mb <= 31. Width and height 1..1024, at most
// 4096 samples.
//
// With `fraction_bits` F > 0 (Mb + F <= 31) the coefficients are the
// quantisation indices with F bits of the unquantised value's fraction below
// them, floor(|y| / Delta * 2^F) with its sign: only the bits at and above F
// are coded (the same bytes as coding the indices themselves), and each
// pass's distortion_decrease is measured against the finer values, still in
// units of the index squared. So the rate allocator sees the decrease
// against the unquantised coefficients, to 2^-F, pass by pass.
//
// With `distortions` false the MQ-coded passes' distortion_decrease is left
// 0 (for a caller that sends every pass, with no rate target); the bytes
// and lengths are the same.
//
// With `pass_limit` > 0, at most that many passes are coded, the last one
// terminated: what the shared encoder gives under the same limit
// (SharedT1Block::pass_limit), exact_passes included.
Result<EncodedCodeBlock> encode_code_block(PlaneView<const int32_t> coefficients,
                                           BandOrientation orientation, int num_bitplanes,
                                           const CodeBlockStyle& style, int fraction_bits = 0,
                                           bool distortions = true, int pass_limit = 0);

// The plain, slow encoder that computes every context from the neighbourhood
// directly; the fast one must produce the same bytes. For tests.
Result<EncodedCodeBlock> encode_code_block_reference(PlaneView<const int32_t> coefficients,
                                                     BandOrientation orientation,
                                                     int num_bitplanes,
                                                     const CodeBlockStyle& style,
                                                     int fraction_bits = 0);

// The codeword segment lengths that carry the first `num_passes` passes
// (B.10.7.2): one per terminated pass among them, and one for the rest if
// the last of them is not terminated (a truncation inside a segment).
std::vector<uint32_t> codeword_segment_lengths(const EncodedCodeBlock& block, int num_passes);

struct CodeBlockToDecode {
  std::span<const uint8_t> data;  // the codeword segments, concatenated
  // Length of each codeword segment in order, as Tier-2 read them; may be
  // empty when the block is one segment (no TERMALL/BYPASS), and may be
  // shorter than the segments the passes need: the rest is read as empty.
  std::span<const uint32_t> segment_lengths;
  int num_passes = 0;
  int zero_bitplanes = 0;  // P
  int num_bitplanes = 0;   // Mb
  BandOrientation orientation = BandOrientation::kLL;
  CodeBlockStyle style;
};

struct DecodedCodeBlockInfo {
  // The lowest bit-plane any pass reached (0 when all planes were decoded);
  // meaningful when passes > 0.
  int lowest_plane = 0;
  // True when the last pass decoded was a significance propagation pass:
  // then the samples that pass did not visit are known only down to
  // lowest_plane + 1 (see `known_plane` of decode_code_block).
  bool ended_in_significance_pass = false;
};

// Decodes one code-block into `out` (its size is the code-block's size):
// two's-complement values at their true weight, so a block decoded through
// all Mb planes returns the exact integers. If `known_plane` is non-empty
// (same size as `out`), it receives for each sample the bit-plane p such that
// the bits of its magnitude at p and above are decoded; mid-point
// reconstruction (E.1.1.2) adds 2^(p-1) to non-zero magnitudes when p > 0.
// A truncated or corrupt segment decodes to whatever it says; errors are only
// for impossible parameters.
Result<DecodedCodeBlockInfo> decode_code_block(const CodeBlockToDecode& block,
                                               PlaneView<int32_t> out,
                                               PlaneView<uint8_t> known_plane = {});

// The plain decoder mirroring encode_code_block_reference; the fast decoder
// must return the same samples for any input. For tests.
Status decode_code_block_reference(const CodeBlockToDecode& block, PlaneView<int32_t> out);

}  // namespace mallat::entropy
