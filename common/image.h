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

// Bytes a sample of `precision` bits (1..38, Table A.11) takes at its
// stored width: 1 to 8 bits in 1, 9 to 16 in 2, more in 4. The one rule for
// Component::stored, the device runner's uploads and downloads
// (codec/stages/stored_samples.h) and the streamed encode's row store.
inline int stored_bytes(int precision) { return precision <= 8 ? 1 : precision <= 16 ? 2 : 4; }

struct Component {
  int64_t width = 0;     // samples per row
  int64_t height = 0;    // rows
  int precision = 8;     // bits per sample, 1..38 in the standard; we store in int32
  bool is_signed = false;
  int dx = 1, dy = 1;    // sub-sampling on the reference grid (XRsiz, YRsiz)
  std::vector<int32_t> samples;  // row-major, width * height
  // Or the samples at their stored width, where a reader was asked for
  // them (io::ReadOptions::stored): row-major, stored_bytes(precision)
  // bytes a sample in the host's byte order (two's complement where
  // signed), and `samples` empty. A device encode uploads them as they are
  // (a quarter of the int32 bytes, none of them widened on the host); the
  // encoder's tile stages read either form, and widen_stored gives the
  // int32 samples for every other use.
  std::vector<uint8_t> stored;
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

// `count` samples at their stored width (Component::stored's layout for
// `precision` and signedness) from `from`, widened into `to`: the host's
// widening, which the device runner's kernels keep as well
// (codec/stages/stored_samples.h).
void widen_stored_samples(const uint8_t* from, int64_t count, int precision, bool is_signed, int32_t* to);
// Whether any component holds its samples at their stored width.
bool has_stored_samples(const Image& image);
// Each component held at its stored width given its int32 samples (the
// stored bytes freed): Component::stored's widening, for the readers of
// `samples`.
void widen_stored(Image& image);
// A copy of `image` with int32 samples in every component.
Image with_int32_samples(const Image& image);

// A new image of n equal components, samples zero. Refuses sizes beyond
// what int64 arithmetic and memory allow.
Result<Image> make_image(int64_t width, int64_t height, int num_components, int precision,
                         bool is_signed);
// The same with each component's samples empty, their storage reserved for
// width * height: for a reader that appends every sample once, so that the
// memory is written once rather than zeroed first.
Result<Image> make_image_to_fill(int64_t width, int64_t height, int num_components, int precision,
                                 bool is_signed);
// The same, unsigned, with each component's stored samples (Component::
// stored) empty and reserved instead.
Result<Image> make_stored_image_to_fill(int64_t width, int64_t height, int num_components, int precision);

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
