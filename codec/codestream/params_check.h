// Validation of coding parameters against the ranges of Annex A. The reader
// runs these on what it parsed, the writer on what it is asked to write. An
// error is kInvalidArgument (kResourceLimit for limits) with a message that
// names the field; the reader adds the marker and byte offset.
#pragma once

#include "codec/codestream/codestream_header.h"
#include "codec/codestream/params.h"
#include "common/status.h"

namespace mallat::codec {

// A.5.1, Tables A.9..A.11: image and tile geometry, components, and the
// limits on tile count and total samples.
Status check_image_and_tile_size(const ImageAndTileSize& siz, const ParseLimits& limits = {});

// Total number of samples of all components (B.2), in 64 bits.
uint64_t total_samples(const ImageAndTileSize& siz);

// A.6.1, Tables A.13..A.21: levels 0..32, code-block exponents 2..10 with a
// sum of at most 12, precinct exponents 0..15 (at least 1 above resolution 0),
// one precinct size per resolution when given.
Status check_component_coding(const ComponentCoding& cc);

// A.6.1, Table A.14: 1..65535 layers, a known progression order, and the
// component part.
Status check_coding_style(const CodingStyle& cod);

// A.6.4, Tables A.28..A.30: guard bits 0..7, exponents 0..31, mantissas
// 0..2047, exactly one step for kScalarDerived, at least one otherwise.
Status check_quantization(const Quantization& q);

// E.1: kNone and kScalarExpounded need a step for each of the 3 * levels + 1
// subbands.
Status check_quantization_for_levels(const Quantization& q, int levels);

// A.6.6: resolution and component ranges within what the syntax allows.
Status check_progression_change(const ProgressionChange& p, int num_components);

}  // namespace mallat::codec
