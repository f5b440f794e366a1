// HT rate control by estimates (EncodeOptions::HtRate::kEstimated). An HT
// cleanup pass cannot be truncated (15444-15 Annex B), so a block meets a
// rate target only at the planes it was coded at. Instead of coding every
// plane, each block's cleanup is estimated at every plane while it is
// quantised (entropy/ht/plane_estimate.h); one slope for the whole image is
// chosen on those estimates for the target (PCRD on estimated hulls), and
// each block is coded at the plane that slope reaches: its cleanup alone
// where the slope lies well between the block's estimated slopes there,
// else with SigProp and MagRef for the plane below it, and, where the slope
// lies nearer the block's estimated slope on the coarser side than on the
// finer one, at the coarser neighbour plane too: that one with SigProp and
// MagRef (points between the two cleanups), the chosen plane's cleanup
// alone. PCRD then chooses among what was coded
// (CodedBlock::ht). Under a size target, where the chosen cleanups came
// out more than 2% larger than estimated (an image of sparse significance,
// which the byte model undercounts), the planes are chosen again on
// estimates scaled by that ratio and the new ones coded too, so that PCRD
// need not drop blocks whole to meet the target. Where the file falls
// short of its target and PCRD took all that was coded of a block (the
// estimates were off), that block is coded one plane finer and PCRD runs
// again, a few rounds at most.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "codec/api/encode.h"
#include "codec/encoder/rate_control.h"
#include "codec/encoder/tile_encoder.h"
#include "common/status.h"
#include "common/thread_pool.h"
#include "entropy/ht/plane_estimate.h"

namespace mallat::codec {

// Whether an encode with `options` codes its HT blocks by estimates: HT
// code-blocks, a rate target or a file limit, no per-component caps, and
// HtRate::kEstimated (or kAuto, but for a step search under a size target).
bool ht_rate_by_estimates(const EncodeOptions& options);

// The planes one block is coded at (-1: none).
struct HtPlanePair {
  int8_t plane = -1;
  int8_t neighbour = -1;
  // Whether the pair's coarser plane gets SigProp and MagRef (else the
  // block has its plane's cleanup alone).
  bool refinement = true;
};

// For each block (estimates[i], whose Tier-1 distortion weighs weights[i]
// in the image): its planes for `target` (bytes or distortion, of the whole
// file), `initial_distortion` being the image's error with nothing sent.
// A block none of whose estimated points reaches half the slope gets none;
// one whose estimated slopes on both sides of its plane lie further than
// `sure_ratio` from the global slope, no neighbour and no refinement passes
// (unless its plane is 0); a neighbour is only ever the coarser plane.
// Each estimated byte count is taken `byte_scale` times.
// The hulls, the slope and each block's planes are found on `pool`'s
// threads (null: on this one), to the same result whatever their count.
std::vector<HtPlanePair> choose_ht_planes(std::span<const entropy::HtPlaneEstimate* const> estimates,
                                          std::span<const double> weights, const LayerTarget& target,
                                          double initial_distortion, double sure_ratio, ThreadPool* pool,
                                          double byte_scale = 1.0);

// The image's error left where `target` is met on the blocks' estimated
// hulls (as choose_ht_planes finds its slope): `initial_distortion` less
// every block's estimated decrease at that slope, summed in block order
// (the same whatever `pool`'s thread count).
double estimated_distortion_left(std::span<const entropy::HtPlaneEstimate* const> estimates,
                                 std::span<const double> weights, const LayerTarget& target,
                                 double initial_distortion, ThreadPool* pool);

// The global slope on the blocks' estimated hulls: walking every hull
// point from the steepest (ties in block order, then the block's own),
// the last one within `target` (its slope; the largest double if none is).
// estimated_slope_by_sorting sorts every point; estimated_slope, for a
// byte target, sums the points' bytes in bins of nearby slopes at once
// (whole numbers, exact in any order) and sorts only the bin the target
// falls in.
double estimated_slope_by_sorting(std::span<const CodeBlockHull> hulls, const LayerTarget& target,
                                  double initial_distortion);
double estimated_slope(std::span<const CodeBlockHull> hulls, const LayerTarget& target, double initial_distortion,
                       ThreadPool* pool);

// Every tile's blocks' estimates, over all tiles in order (an empty one
// where a tile has none), and their Tier-1 distortion weights.
struct BlockEstimates {
  std::vector<const entropy::HtPlaneEstimate*> estimates;
  std::vector<double> weights;
};
BlockEstimates block_estimates(std::span<const std::unique_ptr<TileEncoder>> tiles);

// Codes every tile's blocks at their chosen planes (the tiles quantised and
// kept by TileEncoder::code, or each block's by code_rows, under
// TileCodingSetup::ht_estimated).
Status code_chosen_ht_planes(std::span<const std::unique_ptr<TileEncoder>> tiles, const LayerTarget& target,
                             double initial_distortion, ThreadPool& pool);

// After an allocation whose last layer takes chosen[b] points of block b
// (over all tiles in order), codes one plane finer each block whose point
// is its finest candidate's last pass: the target wants more of it than
// was coded. Returns how many blocks were coded.
Result<size_t> code_further_ht_planes(std::span<const std::unique_ptr<TileEncoder>> tiles,
                                      std::span<const int> chosen);

}  // namespace mallat::codec
