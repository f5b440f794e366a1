#include "python/src/arrays.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <string>

#include "codec/codec.h"
#include "codec/codestream/codestream_reader.h"
#include "codec/jp2/jp2_boxes.h"
#include "python/src/errors.h"

namespace py = pybind11;

namespace mallat::python {
namespace {

// The sample type of a dtype in this machine's byte order; none for others.
std::optional<SampleType> sample_type_of(const py::dtype& dt) {
  if (!dt.attr("isnative").cast<bool>()) return std::nullopt;
  // Through the dtype's attributes, not pybind11's view of the C struct:
  // numpy 2 moved the item size within it.
  const char kind = dt.attr("kind").cast<std::string>()[0];
  if (kind != 'u' && kind != 'i') return std::nullopt;
  const bool u = kind == 'u';
  switch (dt.attr("itemsize").cast<int>()) {
    case 1: return u ? SampleType::kUint8 : SampleType::kInt8;
    case 2: return u ? SampleType::kUint16 : SampleType::kInt16;
    case 4: return u ? SampleType::kUint32 : SampleType::kInt32;
    default: return std::nullopt;
  }
}

py::dtype dtype_of(SampleType type) {
  switch (type) {
    case SampleType::kUint8: return py::dtype::of<uint8_t>();
    case SampleType::kInt8: return py::dtype::of<int8_t>();
    case SampleType::kUint16: return py::dtype::of<uint16_t>();
    case SampleType::kInt16: return py::dtype::of<int16_t>();
    case SampleType::kUint32: return py::dtype::of<uint32_t>();
    case SampleType::kInt32: break;
  }
  return py::dtype::of<int32_t>();
}

}  // namespace

StridedArray strided_view(const py::array& a, const char* what) {
  const std::optional<SampleType> type = sample_type_of(a.dtype());
  if (!type)
    throw CodecError(invalid_argument(std::string(what) + " has dtype " + py::str(a.dtype()).cast<std::string>() +
                                      "; mallat takes uint8, int8, uint16, int16, uint32 or int32"));
  if (a.ndim() != 2 && a.ndim() != 3)
    throw CodecError(invalid_argument(std::string(what) + " has " + std::to_string(a.ndim()) +
                                      " dimensions; mallat takes (height, width) or (height, width, channels)"));
  StridedArray s;
  s.data = const_cast<void*>(a.data());
  s.type = *type;
  s.height = a.shape(0);
  s.width = a.shape(1);
  s.channels = a.ndim() == 3 ? a.shape(2) : 1;
  s.row_stride = a.strides(0);
  s.column_stride = a.strides(1);
  s.channel_stride = a.ndim() == 3 ? a.strides(2) : 0;
  return s;
}

std::span<const uint8_t> byte_span(const py::buffer_info& info) {
  if (info.ndim != 1 || info.itemsize != 1 || (info.size > 1 && info.strides[0] != 1))
    throw CodecError(invalid_argument("data must be a contiguous run of bytes"));
  return {static_cast<const uint8_t*>(info.ptr), static_cast<size_t>(info.size)};
}

py::bytes to_bytes(const std::vector<uint8_t>& v) {
  return py::bytes(reinterpret_cast<const char*>(v.data()), v.size());
}

dwt::Rect image_area(std::span<const uint8_t> data) {
  const std::span<const uint8_t> stream = value_or_throw(codec::find_codestream(data));
  const codec::MainHeader main = value_or_throw(codec::parse_main_header(stream));
  return {main.siz.xosiz, main.siz.yosiz, main.siz.xsiz, main.siz.ysiz};
}

std::optional<PickedComponents> components_to_decode(std::span<const uint8_t> data, const std::vector<int>& channels) {
  if (codec::detect_container(data) == codec::Container::kJp2) {
    const auto jp2 = codec::parse_jp2(data);
    if (!jp2.ok() || jp2->palette || !jp2->channel_definitions.empty()) return std::nullopt;
    const codec::ColourSpecification* colr = codec::first_colour_specification(*jp2);
    if (colr && colr->method == 1 && codec::enumerated_colour_space(colr->enumerated).color_space == ColorSpace::kYcc)
      return std::nullopt;
  }
  const auto stream = codec::find_codestream(data);
  if (!stream.ok()) return std::nullopt;
  const auto main = codec::parse_main_header(*stream);
  if (!main.ok()) return std::nullopt;
  const int n = static_cast<int>(main->siz.components.size());
  PickedComponents picked;
  for (int c : channels) {
    if (c < -n || c >= n) return std::nullopt;
    const int index = c < 0 ? c + n : c;
    auto at = std::find(picked.decode.begin(), picked.decode.end(), index);
    if (at == picked.decode.end()) at = picked.decode.insert(at, index);
    picked.channels.push_back(static_cast<int>(at - picked.decode.begin()));
  }
  return picked;
}

py::array image_to_array(const Image& image, std::optional<std::vector<int>> components,
                         const std::optional<Region>& region, int reduce, std::pair<int64_t, int64_t> area,
                         bool squeeze, std::optional<py::array> out) {
  const int n = image.num_components();
  std::vector<int> chosen;
  if (!components) {
    for (int c = 0; c < n; ++c) chosen.push_back(c);
  } else {
    for (int c : *components) {
      if (c < -n || c >= n)
        throw CodecError(invalid_argument("component " + std::to_string(c) + " does not exist (the image has " +
                                          std::to_string(n) + ")"));
      chosen.push_back(c < 0 ? c + n : c);
    }
  }
  if (chosen.empty()) throw CodecError(invalid_argument("components= chooses no component"));
  std::vector<Window> windows;
  for (int c : chosen) {
    windows.push_back(value_or_throw(component_window(image, c, region, reduce, area.second, area.first)));
    const Window& w = windows.back();
    if (w.width != windows[0].width || w.height != windows[0].height)
      throw CodecError(unsupported(
          "component " + std::to_string(c) + " is " + std::to_string(w.height) + " x " + std::to_string(w.width) +
          ", component " + std::to_string(chosen[0]) + " " + std::to_string(windows[0].height) + " x " +
          std::to_string(windows[0].width) + " (sub-sampled): decode them one at a time with components="));
  }
  const bool channel_axis = !(squeeze && chosen.size() == 1);
  std::vector<py::ssize_t> shape = {windows[0].height, windows[0].width};
  if (channel_axis) shape.push_back(static_cast<py::ssize_t>(chosen.size()));

  py::array result;
  if (out) {
    result = *out;
    const std::optional<SampleType> type = sample_type_of(result.dtype());
    for (int c : chosen)
      if (!type || !type_holds(*type, image.components[c]))
        throw CodecError(invalid_argument(
            "out has dtype " + py::str(result.dtype()).cast<std::string>() + ", which does not hold component " +
            std::to_string(c) + "'s " + std::to_string(image.components[c].precision) + "-bit " +
            (image.components[c].is_signed ? "signed" : "unsigned") + " samples"));
    bool same = result.ndim() == static_cast<py::ssize_t>(shape.size());
    for (size_t i = 0; same && i < shape.size(); ++i) same = result.shape(i) == shape[i];
    if (!same)
      throw CodecError(invalid_argument("out has shape " + py::str(py::tuple(result.attr("shape"))).cast<std::string>() +
                                        ", the decoded image " + py::str(py::tuple(py::cast(shape))).cast<std::string>()));
    if (!result.writeable()) throw CodecError(invalid_argument("out is read-only"));
  } else {
    result = py::array(dtype_of(sample_type_for(image, chosen)), shape);
  }
  StridedArray dst = strided_view(result, "out");
  {
    py::gil_scoped_release nogil;
    copy_to_array(image, chosen, windows, dst);
  }
  return result;
}

}  // namespace mallat::python
