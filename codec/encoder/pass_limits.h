// Rate control over code-blocks coded only down to a pass limit
// (entropy::SharedT1Block::pass_limit): PCRD (rate_control.h) must choose
// for each such block what it would choose had every pass been coded, so
// that the file is the one coding every pass gives. The allocation sees a
// block's hull points of slope at least its threshold; those are the same
// for the cut block and the whole one when no pass the cut block lacks (or
// codes otherwise: those past its exact_passes) could beat the point chosen
// at that slope. A pass removes at most what is left of the block's error,
// and costs at least the bytes of the last exact pass (lengths never fall),
// which bounds every such pass's worth without coding it.
#pragma once

#include <span>

#include "codec/encoder/rate_control.h"
#include "entropy/ebcot/ebcot.h"

namespace mallat::codec {

// Whether, at slopes of at least `slope`, the allocation sees the same hull
// points of a block whose first `exact_passes` of `passes` are those of
// coding every pass, as it would see with every pass coded. `weight` turns
// a pass's distortion_decrease into image units (convex_hull's), and
// `error_bound` is at least what every pass of the whole coding removes in
// those units (the block's error with nothing sent: its energy, weighted).
bool cut_keeps_choice(std::span<const entropy::CodingPass> passes, int exact_passes, double weight,
                      double error_bound, double slope);

// The slope below which an allocation whose last layer takes chosen[b]
// passes of block b looked at no point: the steepest hull point it leaves
// out (0 where it takes every point). A byte target's prefix search
// (allocate_layers, without component caps) decides on the points down to
// that one, so the cut blocks must keep their choice down to it.
double steepest_left_out(std::span<const CodeBlockHull> hulls, std::span<const int> chosen);

}  // namespace mallat::codec
