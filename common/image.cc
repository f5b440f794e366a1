#include "common/image.h"
#include "common/large_buffer.h"

#include <algorithm>
#include <limits>
#include <new>

namespace mallat {

namespace {

// make_image's checks and components; `fill`: each component's samples
// made zero, else only reserved.
Result<Image> make_components(int64_t width, int64_t height, int num_components, int precision, bool is_signed,
                              bool fill) {
  if (width <= 0 || height <= 0) return invalid_argument("image size must be positive");
  if (num_components <= 0 || num_components > 16384)
    return invalid_argument("number of components must be 1..16384");
  if (precision < 1 || precision > 31) return unsupported("precision must be 1..31 bits");
  const int64_t kMaxSamples = int64_t{1} << 34;
  if (width > kMaxSamples / height) return resource_limit("image too large");
  Image image;
  image.components.resize(num_components);
  for (Component& c : image.components) {
    c.width = width;
    c.height = height;
    c.precision = precision;
    c.is_signed = is_signed;
    try {
      if (fill) {
        assign_large(c.samples, static_cast<size_t>(width * height));
      } else {
        reserve_large(c.samples, static_cast<size_t>(width * height));
      }
    } catch (const std::bad_alloc&) {
      return resource_limit("out of memory for a " + std::to_string(width) + "x" +
                            std::to_string(height) + " image");
    }
  }
  return image;
}

}  // namespace

Result<Image> make_image(int64_t width, int64_t height, int num_components, int precision,
                         bool is_signed) {
  return make_components(width, height, num_components, precision, is_signed, true);
}

Result<Image> make_image_to_fill(int64_t width, int64_t height, int num_components, int precision,
                                 bool is_signed) {
  return make_components(width, height, num_components, precision, is_signed, false);
}

namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// One axis of reference_grid_size: the sizes W >= 1 with ceil((origin + W) /
// d) - ceil(origin / d) = n for every component, as [lo, hi]; the image's own
// size when it is among them, else hi. `first_bad` is the first component
// that empties the range (-1: none).
int64_t grid_extent(const Image& image, bool x_axis, int64_t origin, int64_t own, int* first_bad) {
  int64_t lo = 1, hi = INT64_MAX;
  *first_bad = -1;
  for (int c = 0; c < image.num_components(); ++c) {
    const Component& comp = image.components[c];
    const int64_t d = x_axis ? comp.dx : comp.dy, n = x_axis ? comp.width : comp.height;
    // B-2: the component ends at sample k - 1 of its grid, so origin + W lies
    // in ((k - 1) d, k d].
    const int64_t k = n + ceil_div(origin, d);
    lo = std::max(lo, (k - 1) * d + 1 - origin);
    hi = std::min(hi, k * d - origin);
    if (lo > hi) {
      *first_bad = c;
      return 0;
    }
  }
  return own >= lo && own <= hi ? own : hi;
}

}  // namespace

Result<GridSize> reference_grid_size(const Image& image, int64_t x0, int64_t y0) {
  if (image.components.empty()) return invalid_argument("the image has no components");
  for (int c = 0; c < image.num_components(); ++c) {
    const Component& comp = image.components[c];
    if (comp.dx < 1 || comp.dx > 255 || comp.dy < 1 || comp.dy > 255)
      return invalid_argument("component " + std::to_string(c) + " has sub-sampling " + std::to_string(comp.dx) +
                              "x" + std::to_string(comp.dy) + "; XRsiz and YRsiz are 1..255 (A.5.1)");
    if (comp.width <= 0 || comp.height <= 0 || comp.width > (int64_t{1} << 32) || comp.height > (int64_t{1} << 32))
      return invalid_argument("component " + std::to_string(c) + " is " + std::to_string(comp.width) + "x" +
                              std::to_string(comp.height));
  }
  GridSize size;
  int bad_x = -1, bad_y = -1;
  size.width = grid_extent(image, true, x0, image.x1 - image.x0, &bad_x);
  size.height = grid_extent(image, false, y0, image.y1 - image.y0, &bad_y);
  if (bad_x < 0 && bad_y < 0) return size;
  const int c = bad_x >= 0 ? bad_x : bad_y;
  std::string sizes;
  for (const Component& comp : image.components)
    sizes += (sizes.empty() ? "" : ", ") + std::to_string(comp.width) + "x" + std::to_string(comp.height) + " (" +
             std::to_string(comp.dx) + "x" + std::to_string(comp.dy) + ")";
  return invalid_argument("component " + std::to_string(c) + "'s " + (bad_x >= 0 ? "width" : "height") +
                          " fits no image " + (bad_x >= 0 ? "width" : "height") + " that the components before it fit" +
                          " (B-2: ceil((origin + size) / factor) - ceil(origin / factor) samples; origin " +
                          std::to_string(x0) + "," + std::to_string(y0) + "; sizes (sub-sampling): " + sizes + ")");
}

}  // namespace mallat
