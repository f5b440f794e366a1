// The coding parameters in force for one tile and component, after the
// precedence rules of A.6: tile-part COC > tile-part COD > main COC > main
// COD, and likewise QCC > QCD; a tile's RGN and POC replace the main ones.
#pragma once

#include <vector>

#include "codec/codestream/codestream_header.h"
#include "codec/codestream/params.h"
#include "common/status.h"

namespace mallat::codec {

// `tile` may be null (no tile-part overrides).
CodingStyle effective_coding_style(const MainHeader& main, const CodingOverrides* tile);
ComponentCoding effective_component_coding(const MainHeader& main, const CodingOverrides* tile, int component);
Quantization effective_quantization(const MainHeader& main, const CodingOverrides* tile, int component);
int effective_roi_shift(const MainHeader& main, const CodingOverrides* tile, int component);  // 0 = no ROI
const std::vector<ProgressionChange>& effective_progression_changes(const MainHeader& main, const CodingOverrides* tile);

// Everything a tile decoder or encoder needs, per component, checked for
// consistency (step sizes for every subband of each component's levels).
// With `steps_completed`, a QCD/QCC that lists too few step sizes has the
// missing ones derived (quant::complete_step_sizes, a decoder's tolerance)
// and the count of such components is added to *steps_completed; without it,
// it is refused.
struct TileCodingParameters {
  CodingStyle style;  // SGcod (SOP, EPH, order, layers, MCT); style.component is the tile default
  std::vector<ComponentCoding> components;
  std::vector<Quantization> quantization;
  std::vector<int> roi_shift;
  std::vector<ProgressionChange> progression_changes;
};
Result<TileCodingParameters> tile_coding_parameters(const MainHeader& main, const CodingOverrides* tile, int tile_index,
                                                    int* steps_completed = nullptr);

}  // namespace mallat::codec
