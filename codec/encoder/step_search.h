// HT rate control's search over base step sizes (EncodeOptions::step_search).
//
// An HT code-block is truncated only where a cleanup pass ends, at a whole
// bit-plane p of its subband's step (Delta_b x 2^p), with SigProp and MagRef
// for one plane below (15444-15 Annex B): PCRD chooses among far fewer
// points than Part 1's three passes per plane give it. Where the planes fall
// therefore moves the result at a given size by up to 0.2 dB from one image
// and target to the next. Scaling every step by 2^(k/N), k = 0..N-1, shifts
// all planes at once; each scale is encoded in full (PCRD meets the target
// at each) and the best file is kept: for a size target (-r, --bpp) the one
// whose decode has the smallest squared error against the image, for a
// PSNR target (-q) the smallest file at the target's error (each lands a
// few hundredths of a dB off it: its bytes are taken there as an error
// falls with bytes at high rates, as bytes^-2). Then, under a size target
// with expounded steps (E.1.1), each
// resolution's steps are moved by 2^(+-1/4), then 2^(+-1/8), from the best
// so far (EncodeOptions::resolution_step_scales), kept by the same rule.
// Streams stay ordinary: only the QCD's step sizes differ.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "codec/api/encode.h"
#include "codec/stages/call_resources.h"
#include "common/image.h"
#include "common/status.h"

namespace mallat::codec {

// Whether `options` ask for a search (step_search > 1); an error when they
// ask for one that cannot apply (Part 1 code-blocks, the reversible path,
// no rate target) or for more than 16 scales.
Result<bool> step_search_wanted(const EncodeOptions& options);

// One encode with the given options (encode_tiles on the whole image).
using EncodeWith = std::function<Result<std::vector<uint8_t>>(const EncodeOptions& options, bool first)>;

// The search: options.step_search encodes through `encode_with`, each with
// base_step_scale multiplied by 2^(k/N), then (under a size target) up to 4
// per resolution with its steps moved; the best file as above, each decoded
// with the resources' DWT backend.
Result<std::vector<uint8_t>> encode_searching_steps(const Image& image, const EncodeOptions& options,
                                                    const CallResources& resources, const EncodeWith& encode_with);

}  // namespace mallat::codec
