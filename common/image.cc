#include "common/image.h"
#include "common/large_buffer.h"

#include <limits>
#include <new>

namespace mallat {

Result<Image> make_image(int64_t width, int64_t height, int num_components, int precision,
                         bool is_signed) {
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
      assign_large(c.samples, static_cast<size_t>(width * height));
    } catch (const std::bad_alloc&) {
      return resource_limit("out of memory for a " + std::to_string(width) + "x" +
                            std::to_string(height) + " image");
    }
  }
  return image;
}

}  // namespace mallat
