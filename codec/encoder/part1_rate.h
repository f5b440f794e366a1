// Part 1 rate control by estimates with pass limits: under a size target, a
// Part 1 code-block's finer passes are coded only where rate control may
// send them. While quantising, each block's plane statistics give HT's
// estimates of what coding down to each plane costs and removes
// (entropy/ht/plane_estimate.h, whose byte model stands for Part 1's
// here); one slope for the whole image is chosen on them for the target
// (choose_ht_planes), and each block is coded down to two planes past the
// plane that slope reaches (entropy::BlockToEncode::pass_limit). PCRD then
// runs on what was coded; a cut block whose choice it cannot prove to be
// the one coding every pass gives (pass_limits.h's cut_keeps_choice, at
// the steepest point the allocation left out) is coded whole and PCRD runs
// again, until none is left. So the file is the one coding every pass
// gives, byte for byte (J.14's PCRD over every pass), and most blocks'
// finest planes, where most of their decisions lie, are never coded.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "codec/api/encode.h"
#include "codec/encoder/rate_control.h"
#include "codec/encoder/tile_encoder.h"
#include "common/image.h"
#include "common/status.h"
#include "common/thread_pool.h"

namespace mallat::codec {

// Whether an encode with `options` codes its Part 1 blocks so: Part 1
// code-blocks, a size target (-r, --bpp, a file limit) with no -q, no byte
// caps per component, no step search, and EncodeOptions::part1_pass_limits.
// (The encoder keeps it off where a device codes the blocks.)
bool part1_rate_by_estimates(const EncodeOptions& options);

// The most samples (all components) of an image coded so: each block's
// indices wait in memory (or the streamed encode's store, kept_indices.h)
// from quantisation to coding, at the full fraction the passes'
// distortions need, about as many bytes again as a 4K RGB image's coded
// blocks; a larger image keeps the streamed encode's few strips' memory
// and codes every pass.
inline constexpr uint64_t kPart1EstimatedMostSamples = uint64_t{1} << 25;

// The largest share of the image's raw bytes (its samples at their
// precision) a last layer may hold for its blocks to be coded so: at higher
// rates most of a photograph's passes are sent, the margin below and the
// blocks coded again whole take what the limits save, and the two-phase
// coding (quantise everything, then code) waits longer on one thread
// (docs/PERFORMANCE.md, "Part 1 under a size target on the CPU").
inline constexpr double kPart1EstimatedMostShare = 1.0 / 32;

// Whether a last layer of `target_bytes` is a rate low enough for pass
// limits (kPart1EstimatedMostShare of `image`'s raw bytes at most).
bool part1_limits_pay(double target_bytes, const Image& image);

// Whether an encode codes its Part 1 blocks down to pass limits
// (TileCodingSetup::part1_estimated): part1_rate_by_estimates's options,
// an image of at most kPart1EstimatedMostSamples, a last layer of a size
// that part1_limits_pay takes, and no device coding its blocks (`device`).
bool part1_limits_wanted(const EncodeOptions& options, const Image& image, std::span<const LayerTarget> targets,
                         bool device);

// Passes coded past the plane the estimates choose: two planes, so that
// most cut blocks' choices can be proved without coding them whole.
inline constexpr int kPassLimitMargin = 6;

// The pass limit of a block whose estimate has `planes` planes when the
// slope reaches `plane` (-1: none): its passes down to that plane's cleanup
// and kPassLimitMargin more; 0 (every pass) where that is all of them.
int part1_pass_limit(int planes, int plane);

// Codes every tile's kept blocks under the limits the estimates give for
// `target` (`initial_distortion`: the image's error with nothing sent).
Status code_limited_part1(std::span<const std::unique_ptr<TileEncoder>> tiles, const LayerTarget& target,
                          double initial_distortion, ThreadPool& pool);

// After an allocation whose last layer sends chosen[b] passes of block b
// (over all tiles in order, `hulls` the blocks' hulls), codes whole every
// cut block whose choice cut_keeps_choice does not prove, or with
// `every_cut` every cut block. Returns how many.
Result<size_t> code_unproved_part1(std::span<const std::unique_ptr<TileEncoder>> tiles,
                                   std::span<const CodeBlockHull> hulls, std::span<const int> chosen,
                                   bool every_cut = false);

}  // namespace mallat::codec
