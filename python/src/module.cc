// mallat._mallat: the codec for Python. The package around it (python/mallat)
// checks and normalises the arguments; these functions convert between numpy
// arrays and Images, and run the codec with the GIL released, so that calls
// from several Python threads code at the same time.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "codec/codec.h"
#include "codec/api/engine.h"
#include "codec/codestream/codestream_reader.h"
#include "codec/jp2/jp2_boxes.h"
#include "io/file.h"
#include "io/image_io.h"
#include "python/src/array_image.h"
#include "python/src/errors.h"
#include "python/src/stream_info.h"

namespace py = pybind11;

namespace mallat::python {
namespace {

// The sample type of a dtype in this machine's byte order; none for others.
std::optional<SampleType> sample_type_of(const py::dtype& dt) {
  if (!dt.attr("isnative").cast<bool>()) return std::nullopt;
  const char kind = dt.kind();
  if (kind != 'u' && kind != 'i') return std::nullopt;
  const bool u = kind == 'u';
  switch (dt.itemsize()) {
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

// A 2-D (height, width) or 3-D (height, width, channels) array of a
// supported integer dtype, as a StridedArray over its memory.
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

// The bytes of a bytes-like object that the package has made one contiguous
// run of bytes (memoryview(...).cast('B')). The buffer stays exported, so the
// object cannot be resized while the GIL is released.
std::span<const uint8_t> byte_span(const py::buffer_info& info) {
  if (info.ndim != 1 || info.itemsize != 1 || (info.size > 1 && info.strides[0] != 1))
    throw CodecError(invalid_argument("data must be a contiguous run of bytes"));
  return {static_cast<const uint8_t*>(info.ptr), static_cast<size_t>(info.size)};
}

// The options dict that mallat.encode builds (python/mallat/__init__.py).
codec::EncodeOptions encode_options(const py::dict& o) {
  codec::EncodeOptions options;
  options.container = o["jp2"].cast<bool>() ? codec::Container::kJp2 : codec::Container::kCodestream;
  options.reversible = o["reversible"].cast<bool>();
  const std::string kind = o["rate_kind"].cast<std::string>();
  using Kind = codec::EncodeOptions::RateKind;
  options.rate_kind = kind == "ratio" ? Kind::kRatio : kind == "bpp" ? Kind::kBitsPerPixel
                      : kind == "psnr" ? Kind::kPsnr : Kind::kNone;
  options.rate_values = o["rate_values"].cast<std::vector<double>>();
  // 15444-15: the HT block coder, bit 6 of the code-block style.
  options.style.ht = o["ht"].cast<bool>();
  const auto tile = o["tile"].cast<std::pair<uint32_t, uint32_t>>();  // (height, width); 0 = one tile
  options.tile_height = tile.first;
  options.tile_width = tile.second;
  const int levels = o["levels"].cast<int>();
  if (levels >= 0) {
    options.resolutions = levels + 1;
    options.resolutions_explicit = true;
  }
  options.threads = o["threads"].cast<int>();
  return options;
}

py::bytes to_bytes(const std::vector<uint8_t>& v) {
  return py::bytes(reinterpret_cast<const char*>(v.data()), v.size());
}

// Each call runs on an engine of its own (codec/api/engine.h), on the CPU
// with `threads` threads: its pool and buffers are the call's, so calls
// from several Python threads never share them.
Engine call_engine(int threads) {
  EngineOptions engine;
  engine.threads = threads;
  return Engine(engine);
}

py::bytes encode_image(const Image& image, const codec::EncodeOptions& options) {
  auto encoded = [&] {
    py::gil_scoped_release nogil;
    Engine engine = call_engine(options.threads);
    return engine.encode(image, options);
  }();
  return to_bytes(value_or_throw(std::move(encoded)));
}

py::bytes encode(const py::array& array, int bits, const py::dict& options) {
  const StridedArray a = strided_view(array, "the image");
  const codec::EncodeOptions o = encode_options(options);
  auto image = [&] {
    py::gil_scoped_release nogil;
    return image_from_array(a, bits);
  }();
  return encode_image(value_or_throw(std::move(image)), o);
}

py::bytes encode_file(const std::filesystem::path& path, const py::dict& options) {
  const codec::EncodeOptions o = encode_options(options);
  auto image = [&] {
    py::gil_scoped_release nogil;
    return io::read_image(path);
  }();
  return encode_image(value_or_throw(std::move(image)), o);
}

// One DecodeWarning per decode (Python would print each distinct message,
// and a damaged stream can miss thousands of tiles): the first few problems
// and how many more there were.
void warn_decode(const std::vector<std::string>& warnings) {
  if (warnings.empty()) return;
  constexpr size_t kShown = 5;
  std::string message = warnings[0];
  for (size_t i = 1; i < std::min(warnings.size(), kShown); ++i) message += "; " + warnings[i];
  if (warnings.size() > kShown) message += "; and " + std::to_string(warnings.size() - kShown) + " more";
  py::object category = py::module_::import("mallat.errors").attr("DecodeWarning");
  if (PyErr_WarnEx(category.ptr(), message.c_str(), 2) != 0) throw py::error_already_set();
}

Image decode_bytes(std::span<const uint8_t> data, int reduce, int layers, int threads,
                   std::vector<int> components = {}, std::optional<dwt::Rect> region = std::nullopt) {
  codec::DecodeOptions options;
  options.region = region;
  options.reduce = reduce;
  options.layers = layers;
  options.threads = threads;
  options.components = std::move(components);
  codec::DecodeReport report;
  auto image = [&] {
    py::gil_scoped_release nogil;
    Engine engine = call_engine(threads);
    return engine.decode(data, options, &report);
  }();
  Image decoded = value_or_throw(std::move(image));
  warn_decode(report.warnings);
  return decoded;
}

// The full-resolution image area of a stream on the reference grid (A.5.1).
dwt::Rect image_area(std::span<const uint8_t> data) {
  const std::span<const uint8_t> stream = value_or_throw(codec::find_codestream(data));
  const codec::MainHeader main = value_or_throw(codec::parse_main_header(stream));
  return {main.siz.xosiz, main.siz.yosiz, main.siz.xsiz, main.siz.ysiz};
}

// The codestream components to decode for the channels components= names
// (negative from the end), each once, in the order first named, and the
// channels as indices into the image so decoded; null when
// the decoder cannot pick them itself (DecodeOptions::components): a JP2
// header that makes channels of several components (Annex I: pclr expands,
// cdef reorders, sYCC converts to RGB) needs them all, and an index that
// does not exist is left to the whole decode to report.
struct PickedComponents {
  std::vector<int> decode, channels;
};
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

// The chosen components of `image` (or all), cropped to `region`, as a new
// array or written into `out`. `squeeze` drops the channel axis of one channel.
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

py::array decode(const py::buffer& data, int reduce, int layers, int threads,
                 std::optional<std::vector<int>> components, std::optional<std::array<int64_t, 4>> region,
                 bool squeeze, std::optional<py::array> out) {
  const py::buffer_info info = data.request();
  const std::span<const uint8_t> bytes = byte_span(info);
  // components= picked by the decoder where it can: only those decoded.
  std::optional<PickedComponents> picked;
  if (components && !components->empty()) picked = components_to_decode(bytes, *components);
  if (picked) components = picked->channels;
  // region=: checked against the image, then decoded alone (DecodeOptions::
  // region, on the reference grid): the decoded image is the region, so the
  // array is all of it.
  std::optional<Region> r;
  std::optional<dwt::Rect> on_grid;
  std::pair<int64_t, int64_t> area{0, 0};
  if (region) {
    const auto [y0, x0, y1, x1] = *region;
    const dwt::Rect image = image_area(bytes);
    throw_if_error(check_region(Region{y0, x0, y1, x1}, image.width(), image.height()));
    on_grid = dwt::Rect{image.x0 + x0, image.y0 + y0, image.x0 + x1, image.y0 + y1};
    r = Region{0, 0, y1 - y0, x1 - x0};
    area = {y1 - y0, x1 - x0};
  }
  const Image image =
      decode_bytes(bytes, reduce, layers, threads, picked ? picked->decode : std::vector<int>{}, on_grid);
  return image_to_array(image, std::move(components), r, reduce, area, squeeze, std::move(out));
}

void decode_to_file(const py::buffer& data, const std::filesystem::path& path, int reduce, int layers,
                    int threads) {
  const py::buffer_info info = data.request();
  const Image image = decode_bytes(byte_span(info), reduce, layers, threads);
  const Status written = [&] {
    py::gil_scoped_release nogil;
    return io::write_image(image, path);
  }();
  throw_if_error(written);
}

py::array read_image(const std::filesystem::path& path) {
  auto image = [&] {
    py::gil_scoped_release nogil;
    return io::read_image(path);
  }();
  const Image read = value_or_throw(std::move(image));
  return image_to_array(read, std::nullopt, std::nullopt, 0, {0, 0}, true, std::nullopt);
}

void write_image(const std::filesystem::path& path, const py::array& array, int bits) {
  const StridedArray a = strided_view(array, "the image");
  const Status written = [&] {
    py::gil_scoped_release nogil;
    Result<Image> image = image_from_array(a, bits);
    return image.ok() ? io::write_image(*image, path) : image.status();
  }();
  throw_if_error(written);
}

py::dict info(const py::buffer& data) {
  const py::buffer_info buffer = data.request();
  return stream_info(byte_span(buffer));
}

}  // namespace
}  // namespace mallat::python

PYBIND11_MODULE(_mallat, m) {
  namespace mp = mallat::python;
  m.doc() = "mallat's JPEG 2000 codec; use the functions of the mallat package, which check their arguments.";
  mp::register_error_translator();
  m.def("encode", &mp::encode, py::arg("image"), py::arg("bits"), py::arg("options"));
  m.def("encode_file", &mp::encode_file, py::arg("path"), py::arg("options"));
  m.def("decode", &mp::decode, py::arg("data"), py::arg("reduce"), py::arg("layers"), py::arg("threads"),
        py::arg("components"), py::arg("region"), py::arg("squeeze"), py::arg("out"));
  m.def("decode_to_file", &mp::decode_to_file, py::arg("data"), py::arg("path"), py::arg("reduce"),
        py::arg("layers"), py::arg("threads"));
  m.def("read_image", &mp::read_image, py::arg("path"));
  m.def("write_image", &mp::write_image, py::arg("path"), py::arg("image"), py::arg("bits"));
  m.def("info", &mp::info, py::arg("data"));
}
