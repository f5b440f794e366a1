// The layer targets of an encode's rate options (-r, --bpp, -q and the
// profiles' byte limits), and -q's correction of each layer by decoding
// what was written.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "codec/api/encode.h"
#include "codec/encoder/file_assembly.h"
#include "codec/encoder/rate_control.h"
#include "common/image.h"
#include "common/status.h"

namespace mallat::codec {

// Samples over all components, each at its own (sub-sampled) size.
double sample_count(const Image& image);

// Bytes of those samples at their precision: what -r's ratios divide.
double raw_bytes(const Image& image);

// The layer targets of the options, checked for order. -r counts each
// component's bits at its own size; --bpp the image area's pixels (B.2).
Result<std::vector<LayerTarget>> layer_targets(const Image& image, GridSize grid, const EncodeOptions& o);

// -q: the distortion the allocator estimates misses what the 9/7's
// non-orthogonality, the rounding and the clipping to the sample range do
// (a few tenths of a dB at high PSNR). Decode each layer of what was
// written, and where it misses its target by more than 0.03 dB, scale that
// layer's distortion target by the miss and allocate again; twice at most.
// `layers` is the first allocation of `targets`; returns the file.
Result<std::vector<uint8_t>> meet_psnr_targets(const Image& image, const EncodeOptions& options,
                                               const FileAssembler& assembler,
                                               std::span<const CodeBlockHull> hulls,
                                               std::vector<LayerTarget> targets, double initial,
                                               LayerPasses layers);

}  // namespace mallat::codec
