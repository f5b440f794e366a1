// The end of an HT refinement segment (15444-15 C.1): SigProp's stream
// forward from the start and MagRef's backward from the end, their last
// bytes fused where the bits each needs agree. Shared by the refinement
// encoders (entropy/ht/refinement.cc, entropy/ht/refinement_encoder.cc).
// Internal.
#pragma once

#include <cstdint>
#include <vector>

#include "entropy/ht/bit_streams.h"
#include "entropy/ht/passes.h"

namespace mallat::entropy::ht {

// `segment` holds SigProp's whole bytes (sigprop writes into it) and
// `magref_bytes` MagRef's in writing order; appends the end and MagRef's
// bytes to `segment` and sets coded.sigprop_length.
void finish_refinement_segment(ForwardWriter& sigprop, BackwardWriter& magref, std::vector<uint8_t>& magref_bytes,
                               std::vector<uint8_t>& segment, RefinementCoded& coded);

}  // namespace mallat::entropy::ht
