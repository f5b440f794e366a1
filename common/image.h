// An image as JPEG 2000 sees it (Annex B.2): components of integer samples,
// each with its own precision, signedness and sub-sampling, on a reference
// grid whose image area starts at (x0, y0).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/plane_view.h"
#include "common/status.h"

namespace mallat {

// What a component is for (JP2 cdef, I.5.3.6): colour, or opacity (alpha),
// plain or already multiplied into the colour channels.
enum class ChannelRole : uint8_t { kColour, kOpacity, kPremultipliedOpacity, kUnspecified };

struct Component {
  int64_t width = 0;     // samples per row
  int64_t height = 0;    // rows
  int precision = 8;     // bits per sample, 1..38 in the standard; we store in int32
  bool is_signed = false;
  int dx = 1, dy = 1;    // sub-sampling on the reference grid (XRsiz, YRsiz)
  std::vector<int32_t> samples;  // row-major, width * height
  ChannelRole role = ChannelRole::kColour;

  PlaneView<int32_t> view() { return {samples.data(), width, height, width}; }
  PlaneView<const int32_t> view() const { return {samples.data(), width, height, width}; }
  int32_t min_value() const { return is_signed ? -(int32_t)(1u << (precision - 1)) : 0; }
  int32_t max_value() const {
    return is_signed ? (int32_t)((1u << (precision - 1)) - 1) : (int32_t)((1ull << precision) - 1);
  }
};

// What the samples mean, as far as an image file can say.
enum class ColorSpace { kUnknown, kGray, kRgb, kYcc };

struct Image {
  int64_t x0 = 0, y0 = 0;  // image area offset on the reference grid
  // The image area's far corner on the reference grid (Xsiz, Ysiz; B.2),
  // exclusive, when known (a decoded image); 0: not known. Upsampling
  // components that are all sub-sampled needs it: their sizes do not give it.
  int64_t x1 = 0, y1 = 0;
  std::vector<Component> components;
  ColorSpace color_space = ColorSpace::kUnknown;
  bool has_alpha = false;  // the last component is alpha (opacity)
  // An ICC profile the samples are in (JP2 restricted ICC, PNG iCCP); empty
  // when the colour space alone says what they mean.
  std::vector<uint8_t> icc_profile;

  int64_t width() const { return components.empty() ? 0 : components[0].width; }
  int64_t height() const { return components.empty() ? 0 : components[0].height; }
  int num_components() const { return static_cast<int>(components.size()); }
};

// A new image of n equal components, samples zero. Refuses sizes beyond
// what int64 arithmetic and memory allow.
Result<Image> make_image(int64_t width, int64_t height, int num_components, int precision,
                         bool is_signed);
// The same with each component's samples empty, their storage reserved for
// width * height: for a reader that appends every sample once, so that the
// memory is written once rather than zeroed first.
Result<Image> make_image_to_fill(int64_t width, int64_t height, int num_components, int precision,
                                 bool is_signed);

// The image area's size on the reference grid, Xsiz - XOsiz by Ysiz - YOsiz
// (B.2), with the area starting at (x0, y0): a size whose B-2 extent of each
// component, ceil((x0 + W) / dx) - ceil(x0 / dx) (likewise in y), is that
// component's size. The image's own x1 - x0 by y1 - y0 when it is one (a
// decoded image), else the largest one (a component not sub-sampled fixes it
// exactly). An error names the first component whose size no common W or H
// gives.
struct GridSize {
  int64_t width = 0, height = 0;
};
Result<GridSize> reference_grid_size(const Image& image, int64_t x0, int64_t y0);

}  // namespace mallat
