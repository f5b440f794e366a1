// A code-block's dead-zone quantisation (E.1.1, quant/quantize.h) and its
// HT plane statistics (entropy/ht/plane_estimate.h) in one pass over its
// rows: each pair of rows is quantised and its quads counted from the
// magnitudes while they are in registers (AVX2, or AVX-512 where the HT
// cleanup coder's instruction set is, entropy/ht/passes.h), instead of a
// second pass reading the indices back. Rate control by estimates under a size target takes
// both for every block (streamed_tile_encoder.cc).
//
// The plain reference is the two passes one after the other
// (quant::quantize_dead_zone, then entropy::gather_ht_plane_statistics):
// the one pass gives their indices, clipped count, energy and statistics
// bit for bit, and is tested against them.
#pragma once

#include <cstdint>

#include "common/plane_view.h"
#include "entropy/ht/passes.h"
#include "entropy/ht/plane_estimate.h"
#include "quant/quantize.h"

namespace mallat::codec {

// Quantises `in` into `out` as quant::quantize_dead_zone(in, delta,
// max_bitplanes, out, fraction_bits) does (`out` may be `in`'s own storage)
// and gathers the indices' statistics as
// entropy::gather_ht_plane_statistics(out, fraction_bits) does, into
// `error` and `statistics`. False, with nothing written, where the one
// pass does not apply: no AVX2 (or `isa` resolving to the generic coder),
// a region wider than 1024 or of more than 4096 samples (more than a
// code-block, 15444-1 A.6.1), or indices that may reach 2^20 (Mb + F above
// 20, past the exact integer sums of the statistics' fast pass).
bool quantise_with_ht_statistics(PlaneView<const float> in, double delta, int max_bitplanes, int fraction_bits,
                                 PlaneView<int32_t> out, quant::QuantizationError& error,
                                 entropy::HtPlaneStatistics& statistics,
                                 entropy::ht::CleanupIsa isa = entropy::ht::CleanupIsa::kBest);

}  // namespace mallat::codec
