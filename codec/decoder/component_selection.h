// DecodeOptions::components (-c): which codestream components a decode
// decodes, and which of them it outputs in what order.
#pragma once

#include <span>
#include <vector>

#include "common/image.h"
#include "common/status.h"

namespace mallat::codec {

struct ComponentSelection {
  // The codestream components decoded, ascending: those asked for, and
  // components 0..2 all three when the colour transform joins them.
  std::vector<int> decoded;
  // Per output component, in the order asked: its index in `decoded`.
  std::vector<int> output;
  // Every component in codestream order: a whole decode.
  bool all = true;
};

// `asked` empty: every one of `num_components`. Otherwise each index must
// exist and appear once (as opj_decompress -c refuses). colour_transform: a
// tile of the stream has the multiple component transform on.
Result<ComponentSelection> select_components(std::span<const int> asked, int num_components, bool colour_transform);

// The decoded image (its components those of selection.decoded) with the
// output components alone, in the order asked.
void keep_output_components(const ComponentSelection& selection, Image& image);

}  // namespace mallat::codec
