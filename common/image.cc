#include "common/image.h"
#include "common/large_buffer.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>

namespace mallat {

namespace {

// What make_components does with each component's storage.
enum class Storage { kZero, kReserve, kReserveStored };

// make_image's checks and components, their storage as `storage` says.
Result<Image> make_components(int64_t width, int64_t height, int num_components, int precision, bool is_signed,
                              Storage storage) {
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
      if (storage == Storage::kZero) {
        assign_large(c.samples, static_cast<size_t>(width * height));
      } else if (storage == Storage::kReserve) {
        reserve_large(c.samples, static_cast<size_t>(width * height));
      } else {
        reserve_large(c.stored, static_cast<size_t>(width * height * stored_bytes(precision)));
      }
    } catch (const std::bad_alloc&) {
      return resource_limit("out of memory for a " + std::to_string(width) + "x" +
                            std::to_string(height) + " image");
    }
  }
  return image;
}

}  // namespace

bool has_stored_samples(const Image& image) {
  return std::any_of(image.components.begin(), image.components.end(),
                     [](const Component& c) { return !c.stored.empty(); });
}

namespace {

template <typename Stored>
void widen_as(const uint8_t* from, int64_t count, int32_t* to) {
  for (int64_t i = 0; i < count; ++i) {
    Stored v;
    std::memcpy(&v, from + i * static_cast<int64_t>(sizeof(Stored)), sizeof(Stored));
    to[i] = static_cast<int32_t>(v);
  }
}

}  // namespace

void widen_stored_samples(const uint8_t* from, int64_t count, int precision, bool is_signed, int32_t* to) {
  const int bytes = stored_bytes(precision);
  if (bytes == 1) {
    is_signed ? widen_as<int8_t>(from, count, to) : widen_as<uint8_t>(from, count, to);
  } else if (bytes == 2) {
    is_signed ? widen_as<int16_t>(from, count, to) : widen_as<uint16_t>(from, count, to);
  } else {
    widen_as<int32_t>(from, count, to);
  }
}

void widen_stored(Image& image) {
  for (Component& c : image.components) {
    if (c.stored.empty()) continue;
    const int64_t count = static_cast<int64_t>(c.stored.size()) / stored_bytes(c.precision);
    assign_large(c.samples, static_cast<size_t>(count));
    widen_stored_samples(c.stored.data(), count, c.precision, c.is_signed, c.samples.data());
    std::vector<uint8_t>().swap(c.stored);
  }
}

Image with_int32_samples(const Image& image) {
  Image copy = image;
  widen_stored(copy);
  return copy;
}

Result<Image> make_image(int64_t width, int64_t height, int num_components, int precision,
                         bool is_signed) {
  return make_components(width, height, num_components, precision, is_signed, Storage::kZero);
}

Result<Image> make_image_to_fill(int64_t width, int64_t height, int num_components, int precision,
                                 bool is_signed) {
  return make_components(width, height, num_components, precision, is_signed, Storage::kReserve);
}

Result<Image> make_stored_image_to_fill(int64_t width, int64_t height, int num_components, int precision) {
  return make_components(width, height, num_components, precision, false, Storage::kReserveStored);
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
