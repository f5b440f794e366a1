// Rate control by estimates (ht_rate.h) at one of two base steps. Under a
// size target the PSNR an HT encode reaches moves by a tenth or two of a
// dB with the base step, and which step is better depends on the image
// and the rate; the step search (step_search.h) codes several and keeps
// the best file. Here each block is estimated at the nominal steps and,
// its indices taken at steps 2^-1/2 times as large (quant/finer_indices.h),
// at those too, while it is quantised; the steps whose estimates leave
// less error where the target is met are taken, and their QCD (A.6.4)
// written. One quantisation and one coding: the finer steps' indices come
// from the nominal ones, within an eighth of their interval.
#pragma once

#include <memory>
#include <span>

#include "codec/api/encode.h"
#include "codec/codestream/params.h"
#include "codec/encoder/rate_control.h"
#include "codec/encoder/tile_encoder.h"
#include "common/image.h"
#include "common/status.h"
#include "common/thread_pool.h"

namespace mallat::codec {

// The base step of the finer choice, over the nominal one.
inline constexpr double kFinerBaseStep = 0.70710678118654752;

// Sets setup.finer_main (to `finer`, filled here) and setup.finer_step
// where an encode with `options` and `main` has the choice: HT blocks by
// estimates under a size target asked for with HtRate::kEstimatedSteps, the
// irreversible path, no region of interest, and F = 2 fraction bits below
// every index at both steps.
// Otherwise leaves them unset.
Status offer_finer_steps(const Image& image, GridSize grid, const EncodeOptions& options, const MainHeader& main,
                         TileCodingSetup& setup, MainHeader& finer);

// After every tile is quantised: whether the finer steps' estimates leave
// less error at `target` (estimated_distortion_left) than the nominal
// ones'; the nominal steps where they tie.
bool finer_steps_better(std::span<const std::unique_ptr<TileEncoder>> tiles, const LayerTarget& target,
                        double initial_distortion, ThreadPool& pool);

}  // namespace mallat::codec
