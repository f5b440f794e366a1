#include "python/src/array_image.h"

#include <limits>
#include <string>

namespace mallat::python {
namespace {

// Calls fn(T{}) with T the C++ type of `type`.
template <typename Fn>
decltype(auto) with_sample_type(SampleType type, Fn&& fn) {
  switch (type) {
    case SampleType::kUint8: return fn(uint8_t{});
    case SampleType::kInt8: return fn(int8_t{});
    case SampleType::kUint16: return fn(uint16_t{});
    case SampleType::kInt16: return fn(int16_t{});
    case SampleType::kUint32: return fn(uint32_t{});
    case SampleType::kInt32: break;
  }
  return fn(int32_t{});
}

const char* sample_type_name(SampleType type) {
  switch (type) {
    case SampleType::kUint8: return "uint8";
    case SampleType::kInt8: return "int8";
    case SampleType::kUint16: return "uint16";
    case SampleType::kInt16: return "int16";
    case SampleType::kUint32: return "uint32";
    case SampleType::kInt32: break;
  }
  return "int32";
}

template <typename T>
const T& sample_at(const StridedArray& a, int64_t y, int64_t x, int64_t c) {
  const auto* base = static_cast<const char*>(a.data);
  return *reinterpret_cast<const T*>(base + y * a.row_stride + x * a.column_stride + c * a.channel_stride);
}

// Component c's samples from channel c, each checked against [lo, hi] when
// `check` (bits below the type's).
template <typename T>
Status copy_channel(const StridedArray& a, int64_t c, bool check, int64_t lo, int64_t hi, Component& comp) {
  int32_t* dst = comp.samples.data();
  for (int64_t y = 0; y < a.height; ++y) {
    for (int64_t x = 0; x < a.width; ++x) {
      const int64_t v = sample_at<T>(a, y, x, c);
      if (check && (v < lo || v > hi))
        return invalid_argument("sample " + std::to_string(v) + " at row " + std::to_string(y) + ", column " +
                                std::to_string(x) + ", channel " + std::to_string(c) + " does not fit " +
                                std::to_string(comp.precision) + "-bit " +
                                (comp.is_signed ? "signed" : "unsigned") + " samples (bits=" +
                                std::to_string(comp.precision) + ")");
      *dst++ = static_cast<int32_t>(v);
    }
  }
  return Status::Ok();
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

int sample_bits(SampleType type) {
  return with_sample_type(type, [](auto t) { return static_cast<int>(sizeof(t) * 8); });
}

bool sample_signed(SampleType type) {
  return with_sample_type(type, [](auto t) { return std::numeric_limits<decltype(t)>::is_signed; });
}

Result<Image> image_from_array(const StridedArray& a, int bits) {
  const int type_bits = sample_bits(a.type);
  const bool is_signed = sample_signed(a.type);
  if (bits < 1 || bits > type_bits)
    return invalid_argument("bits=" + std::to_string(bits) + " does not fit " + sample_type_name(a.type) +
                            " samples (1.." + std::to_string(type_bits) + ")");
  if (a.height <= 0 || a.width <= 0 || a.channels <= 0)
    return invalid_argument("the image is empty (" + std::to_string(a.height) + " x " + std::to_string(a.width) +
                            " x " + std::to_string(a.channels) + ")");
  if (a.channels > 16384)
    return invalid_argument(std::to_string(a.channels) + " channels: a codestream holds at most 16384 components");
  // Image samples are int32: a 32-bit component does not fit them.
  if (bits > 31)
    return unsupported(std::string(sample_type_name(a.type)) + " images need bits= below 32: the codec holds " +
                       "components of at most 31 bits");
  MALLAT_ASSIGN_OR_RETURN(Image image,
                          make_image(a.width, a.height, static_cast<int>(a.channels), bits, is_signed));
  const bool check = bits < type_bits;
  const int64_t lo = is_signed ? -(int64_t{1} << (bits - 1)) : 0;
  const int64_t hi = is_signed ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
  for (int64_t c = 0; c < a.channels; ++c) {
    Component& comp = image.components[c];
    MALLAT_RETURN_IF_ERROR(with_sample_type(
        a.type, [&](auto t) { return copy_channel<decltype(t)>(a, c, check, lo, hi, comp); }));
  }
  image.color_space = a.channels >= 3 ? ColorSpace::kRgb : a.channels >= 1 ? ColorSpace::kGray : ColorSpace::kUnknown;
  if (a.channels > 4) image.color_space = ColorSpace::kUnknown;
  image.has_alpha = a.channels == 2 || a.channels == 4;
  return image;
}

Status check_region(const Region& r, int64_t full_width, int64_t full_height) {
  if (r.y0 < 0 || r.x0 < 0 || r.y1 > full_height || r.x1 > full_width || r.y0 >= r.y1 || r.x0 >= r.x1)
    return invalid_argument("region (" + std::to_string(r.y0) + ", " + std::to_string(r.x0) + ", " +
                            std::to_string(r.y1) + ", " + std::to_string(r.x1) +
                            ") is not a non-empty rectangle inside the " + std::to_string(full_height) + " x " +
                            std::to_string(full_width) + " image (y0, x0, y1, x1)");
  return Status::Ok();
}

Result<Window> component_window(const Image& image, int c, const std::optional<Region>& region, int reduce,
                                int64_t full_width, int64_t full_height) {
  const Component& comp = image.components[c];
  if (!region) return Window{0, 0, comp.width, comp.height};
  const Region& r = *region;
  MALLAT_RETURN_IF_ERROR(check_region(r, full_width, full_height));
  // B-14 as the decoder applies it to the image area: a reference-grid
  // coordinate X maps to ceil(ceil(X / dx) / 2^reduce) in the component.
  const int64_t sx = int64_t{comp.dx} << reduce, sy = int64_t{comp.dy} << reduce;
  const int64_t bx = ceil_div(image.x0, sx), by = ceil_div(image.y0, sy);
  Window w;
  w.x = ceil_div(image.x0 + r.x0, sx) - bx;
  w.y = ceil_div(image.y0 + r.y0, sy) - by;
  w.width = std::min(ceil_div(image.x0 + r.x1, sx) - bx, comp.width) - w.x;
  w.height = std::min(ceil_div(image.y0 + r.y1, sy) - by, comp.height) - w.y;
  if (w.width <= 0 || w.height <= 0)
    return invalid_argument("region (" + std::to_string(r.y0) + ", " + std::to_string(r.x0) + ", " +
                            std::to_string(r.y1) + ", " + std::to_string(r.x1) + ") holds no sample of component " +
                            std::to_string(c) + " at reduce=" + std::to_string(reduce));
  return w;
}

bool type_holds(SampleType type, const Component& comp) {
  return with_sample_type(type, [&](auto t) {
    using T = decltype(t);
    return int64_t{comp.min_value()} >= int64_t{std::numeric_limits<T>::min()} &&
           int64_t{comp.max_value()} <= int64_t{std::numeric_limits<T>::max()};
  });
}

SampleType sample_type_for(const Image& image, std::span<const int> components) {
  for (SampleType type : {SampleType::kUint8, SampleType::kInt8, SampleType::kUint16, SampleType::kInt16}) {
    bool holds = true;
    for (int c : components) holds = holds && type_holds(type, image.components[c]);
    if (holds) return type;
  }
  return SampleType::kInt32;
}

void copy_to_array(const Image& image, std::span<const int> components, std::span<const Window> windows,
                   const StridedArray& out) {
  with_sample_type(out.type, [&](auto t) {
    using T = decltype(t);
    auto* base = static_cast<char*>(out.data);
    for (size_t i = 0; i < components.size(); ++i) {
      const Component& comp = image.components[components[i]];
      const Window& w = windows[i];
      for (int64_t y = 0; y < out.height; ++y) {
        const int32_t* src = comp.samples.data() + (w.y + y) * comp.width + w.x;
        char* row = base + y * out.row_stride + static_cast<int64_t>(i) * out.channel_stride;
        for (int64_t x = 0; x < out.width; ++x)
          *reinterpret_cast<T*>(row + x * out.column_stride) = static_cast<T>(src[x]);
      }
    }
  });
}

}  // namespace mallat::python
