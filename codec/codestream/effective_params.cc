#include "codec/codestream/effective_params.h"

#include <string>

#include "codec/codestream/params_check.h"
#include "quant/step_size.h"

namespace mallat::codec {

CodingStyle effective_coding_style(const MainHeader& main, const CodingOverrides* tile) {
  return tile && tile->cod ? *tile->cod : main.cod;
}

ComponentCoding effective_component_coding(const MainHeader& main, const CodingOverrides* tile, int c) {
  if (tile) {
    if (auto it = tile->coc.find(c); it != tile->coc.end()) return it->second;
    if (tile->cod) return tile->cod->component;
  }
  if (auto it = main.coc.find(c); it != main.coc.end()) return it->second;
  return main.cod.component;
}

Quantization effective_quantization(const MainHeader& main, const CodingOverrides* tile, int c) {
  if (tile) {
    if (auto it = tile->qcc.find(c); it != tile->qcc.end()) return it->second;
    if (tile->qcd) return *tile->qcd;
  }
  if (auto it = main.qcc.find(c); it != main.qcc.end()) return it->second;
  return main.qcd;
}

int effective_roi_shift(const MainHeader& main, const CodingOverrides* tile, int c) {
  if (tile)
    for (const auto& r : tile->rgn)
      if (r.component == c) return r.shift;
  for (const auto& r : main.rgn)
    if (r.component == c) return r.shift;
  return 0;
}

const std::vector<ProgressionChange>& effective_progression_changes(const MainHeader& main, const CodingOverrides* tile) {
  return tile && !tile->poc.empty() ? tile->poc : main.poc;
}

Result<TileCodingParameters> tile_coding_parameters(const MainHeader& main, const CodingOverrides* tile, int tile_index,
                                                    int* steps_completed) {
  TileCodingParameters p;
  p.style = effective_coding_style(main, tile);
  const int nc = static_cast<int>(main.siz.components.size());
  p.components.reserve(nc);
  p.quantization.reserve(nc);
  p.roi_shift.reserve(nc);
  for (int c = 0; c < nc; ++c) {
    p.components.push_back(effective_component_coding(main, tile, c));
    p.quantization.push_back(effective_quantization(main, tile, c));
    p.roi_shift.push_back(effective_roi_shift(main, tile, c));
    Quantization& q = p.quantization.back();
    const int levels = p.components.back().levels;
    Status st = check_quantization_for_levels(q, levels);
    if (!st.ok() && steps_completed && q.style != QuantizationStyle::kScalarDerived && !q.steps.empty()) {
      q.steps = quant::complete_step_sizes(q.steps, q.style == QuantizationStyle::kNone, levels);
      ++*steps_completed;
      st = Status::Ok();
    }
    if (!st.ok())
      return corrupt_data("tile " + std::to_string(tile_index) + " component " + std::to_string(c) + ": " + st.message());
  }
  p.progression_changes = effective_progression_changes(main, tile);
  return p;
}

}  // namespace mallat::codec
