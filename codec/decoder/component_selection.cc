#include "codec/decoder/component_selection.h"

#include <algorithm>
#include <string>
#include <utility>

namespace mallat::codec {

Result<ComponentSelection> select_components(std::span<const int> asked, int num_components, bool colour_transform) {
  ComponentSelection s;
  if (asked.empty()) {
    for (int c = 0; c < num_components; ++c) {
      s.decoded.push_back(c);
      s.output.push_back(c);
    }
    return s;
  }
  std::vector<bool> wanted(static_cast<size_t>(num_components), false);
  for (int c : asked) {
    if (c < 0 || c >= num_components)
      return invalid_argument("component " + std::to_string(c) + " does not exist (the image has " +
                              std::to_string(num_components) + " components, 0.." +
                              std::to_string(num_components - 1) + ")");
    if (wanted[static_cast<size_t>(c)])
      return invalid_argument("component " + std::to_string(c) + " is asked for twice");
    wanted[static_cast<size_t>(c)] = true;
  }
  // G.2 / G.3: the inverse RCT or ICT makes each of components 0..2 from
  // all three, so asking for any of them decodes the three, and only those
  // asked are output. (opj_decompress -c skips the colour transform instead,
  // and outputs the components as coded: Y, Cb, Cr rather than R, G, B.)
  if (colour_transform && num_components >= 3 && (wanted[0] || wanted[1] || wanted[2]))
    wanted[0] = wanted[1] = wanted[2] = true;
  std::vector<int> position(static_cast<size_t>(num_components), -1);
  for (int c = 0; c < num_components; ++c) {
    if (!wanted[static_cast<size_t>(c)]) continue;
    position[static_cast<size_t>(c)] = static_cast<int>(s.decoded.size());
    s.decoded.push_back(c);
  }
  for (int c : asked) s.output.push_back(position[static_cast<size_t>(c)]);
  s.all = static_cast<int>(asked.size()) == num_components;
  for (size_t i = 0; s.all && i < asked.size(); ++i) s.all = asked[i] == static_cast<int>(i);
  return s;
}

void keep_output_components(const ComponentSelection& selection, Image& image) {
  std::vector<Component> out;
  out.reserve(selection.output.size());
  for (int i : selection.output) out.push_back(std::move(image.components[static_cast<size_t>(i)]));
  image.components = std::move(out);
}

}  // namespace mallat::codec
