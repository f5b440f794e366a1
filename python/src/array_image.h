// numpy arrays and mallat Images, without Python: an array is described by a
// pointer, its sample type and its strides (in bytes), so that any numpy
// layout (views, transposes, negative strides) converts without a copy first.
// An array is (height, width, channels); channel c is component c.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "common/image.h"
#include "common/status.h"

namespace mallat::python {

// The integer dtypes the module reads and writes.
enum class SampleType { kUint8, kInt8, kUint16, kInt16, kUint32, kInt32 };

int sample_bits(SampleType type);    // 8, 16 or 32
bool sample_signed(SampleType type);

struct StridedArray {
  void* data = nullptr;
  SampleType type = SampleType::kUint8;
  int64_t height = 0, width = 0, channels = 1;
  // Bytes from one row / column / channel to the next.
  int64_t row_stride = 0, column_stride = 0, channel_stride = 0;
};

// An Image of `channels` components of `bits` bits (1..the type's bits; the
// array's signedness), samples copied from the array. Where `bits` is below
// the type's, every sample is checked to fit, and the first that does not is
// named (row, column, channel): such a sample would silently wrap in the file.
// 3 channels are RGB, 4 RGB + alpha, 2 grey + alpha, 1 grey; others unknown.
Result<Image> image_from_array(const StridedArray& array, int bits);

// A.5.1 (image area) and B-14 (reduction): a rectangle of the full-resolution
// image, rows [y0, y1) and columns [x0, x1), counted from the image area's
// top-left corner, as opj_decompress -d takes it.
struct Region {
  int64_t y0 = 0, x0 = 0, y1 = 0, x1 = 0;
};

// Which samples of each chosen component the output holds: a window of the
// decoded component.
struct Window {
  int64_t x = 0, y = 0, width = 0, height = 0;
};

// Whether `region` is a non-empty rectangle inside the full_width x
// full_height image area; the error says which region and which area.
Status check_region(const Region& region, int64_t full_width, int64_t full_height);

// The window of component `c` of a decoded image that `region` covers at
// `reduce` levels down (the component's own sub-sampling applied, as the
// decoder maps the image area), or the whole component without a region.
// `full_width` x `full_height` is the full-resolution image area (from SIZ),
// against which the region is checked.
Result<Window> component_window(const Image& image, int c, const std::optional<Region>& region, int reduce,
                                int64_t full_width, int64_t full_height);

// The smallest type that holds every sample of the chosen components: 8 bits
// up to 8-bit precision, 16 up to 16, then int32 (the Image's own type).
SampleType sample_type_for(const Image& image, std::span<const int> components);

// Whether `type` holds every value of component `c` (its precision and sign).
bool type_holds(SampleType type, const Component& component);

// Copies each chosen component's window into channel i of `out`, whose height
// and width are the windows' (all equal) and whose channels are
// components.size(). The caller has checked shape and type (type_holds).
void copy_to_array(const Image& image, std::span<const int> components, std::span<const Window> windows,
                   const StridedArray& out);

}  // namespace mallat::python
