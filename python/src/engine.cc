#include "python/src/engine.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "codec/api/engine.h"
#include "codec/codec.h"
#include "io/image_io.h"
#include "python/src/array_image.h"
#include "python/src/arrays.h"
#include "python/src/device_array.h"
#include "python/src/errors.h"

namespace py = pybind11;

namespace mallat::python {
namespace {

// The options dict that mallat's encode builds (python/mallat/__init__.py).
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
  return options;
}

// One DecodeWarning per decode (Python would print each distinct message,
// and a damaged stream can miss thousands of tiles): the first few problems
// and how many more there were; `prefix` names a batch's item.
void warn_decode(const std::vector<std::string>& warnings, const std::string& prefix = "") {
  if (warnings.empty()) return;
  constexpr size_t kShown = 5;
  std::string message = prefix + warnings[0];
  for (size_t i = 1; i < std::min(warnings.size(), kShown); ++i) message += "; " + warnings[i];
  if (warnings.size() > kShown) message += "; and " + std::to_string(warnings.size() - kShown) + " more";
  py::object category = py::module_::import("mallat.errors").attr("DecodeWarning");
  if (PyErr_WarnEx(category.ptr(), message.c_str(), 2) != 0) throw py::error_already_set();
}

Device device_named(const std::string& name) {
  if (name == "cpu") return Device::kCpu;
  if (name == "cuda") return Device::kCuda;
  if (name == "auto") return Device::kAuto;
  throw CodecError(invalid_argument("device='" + name + "' must be 'auto', 'cpu' or 'cuda'"));
}

// A batch's results as a list: each item's value, or its error raised (the
// first in order) or, with `raise` false, in its place as an exception.
template <class Result, class Convert>
py::list batch_list(std::vector<Result>& results, bool raise, const Convert& convert) {
  if (raise)
    for (const Result& r : results) throw_if_error(r.status);
  py::list list;
  for (size_t i = 0; i < results.size(); ++i)
    list.append(results[i].status.ok() ? convert(i, results[i]) : exception_for(results[i].status));
  return list;
}

// An image decoded as a byte raster (DecodeItem::raster: the samples
// interleaved, raster[(y * width + x) * components + c]) as the array
// image_to_array would give, owning the raster without a copy: (height,
// width, components), or (height, width) for one component; C order.
// raster_shape: that shape (the device's raster as a DeviceArray too).
std::vector<int64_t> raster_shape(const Image& image) {
  std::vector<int64_t> shape = {image.height(), image.width()};
  if (image.num_components() > 1) shape.push_back(image.num_components());
  return shape;
}

py::array raster_array(const Image& image, std::vector<uint8_t>&& raster) {
  auto* owned = new std::vector<uint8_t>(std::move(raster));
  const py::capsule free(owned, [](void* p) { delete static_cast<std::vector<uint8_t>*>(p); });
  const std::vector<int64_t> shape = raster_shape(image);
  return py::array(py::dtype::of<uint8_t>(), std::vector<py::ssize_t>(shape.begin(), shape.end()), owned->data(),
                   free);
}

class PyEngine {
 public:
  PyEngine(const std::string& device, int threads) {
    EngineOptions options;
    options.device = device_named(device);
    options.threads = threads;
    engine_ = std::make_unique<Engine>(options);
  }

  py::bytes encode(const py::array& array, int bits, const py::dict& options) {
    const StridedArray a = strided_view(array, "the image");
    const codec::EncodeOptions o = encode_options(options);
    auto encoded = [&] {
      py::gil_scoped_release nogil;
      const std::lock_guard<std::mutex> one_call(calls_);
      Result<Image> image = image_from_array(a, bits);
      if (!image.ok()) return Result<std::vector<uint8_t>>(image.status());
      return engine_->encode(*image, o);
    }();
    return to_bytes(value_or_throw(std::move(encoded)));
  }

  py::bytes encode_file(const std::filesystem::path& path, const py::dict& options) {
    const codec::EncodeOptions o = encode_options(options);
    auto encoded = [&] {
      py::gil_scoped_release nogil;
      const std::lock_guard<std::mutex> one_call(calls_);
      Result<Image> image = io::read_image(path);
      if (!image.ok()) return Result<std::vector<uint8_t>>(image.status());
      return engine_->encode(*image, o);
    }();
    return to_bytes(value_or_throw(std::move(encoded)));
  }

  // Arrays (checked by the package) with each one's bits; the images are
  // made beside the coding, an array that does not convert fails alone.
  py::list encode_batch(const std::vector<py::array>& arrays, const std::vector<int>& bits,
                        const py::dict& options, bool raise) {
    std::vector<StridedArray> views;
    for (const py::array& a : arrays) views.push_back(strided_view(a, "the image"));
    const codec::EncodeOptions o = encode_options(options);
    std::vector<EncodeResult> results;
    {
      py::gil_scoped_release nogil;
      const std::lock_guard<std::mutex> one_call(calls_);
      const std::vector<EncodeItem> items(views.size());  // each read by the hook
      EncodeHooks hooks;
      // Each array becomes an Image on its item's thread (`read`), so the
      // conversion of one overlaps the coding of others.
      hooks.read = [&](size_t i) { return image_from_array(views[i], bits[i]); };
      results = engine_->encode_batch(items, o, hooks);
    }
    return batch_list(results, raise, [](size_t, EncodeResult& r) { return py::object(to_bytes(r.bytes)); });
  }

  py::array decode(const py::buffer& data, int reduce, int layers, std::optional<std::vector<int>> components,
                   std::optional<std::array<int64_t, 4>> region, bool squeeze, std::optional<py::array> out) {
    const py::buffer_info info = data.request();
    const std::span<const uint8_t> bytes = byte_span(info);
    codec::DecodeOptions options;
    options.reduce = reduce;
    options.layers = layers;
    // components= picked by the decoder where it can: only those decoded.
    std::optional<PickedComponents> picked;
    if (components && !components->empty()) picked = components_to_decode(bytes, *components);
    if (picked) {
      components = picked->channels;
      options.components = picked->decode;
    }
    // region=: checked against the image, then decoded alone (DecodeOptions::
    // region, on the reference grid): the decoded image is the region, so the
    // array is all of it.
    std::optional<Region> r;
    std::pair<int64_t, int64_t> area{0, 0};
    if (region) {
      const auto [y0, x0, y1, x1] = *region;
      const dwt::Rect image = image_area(bytes);
      throw_if_error(check_region(Region{y0, x0, y1, x1}, image.width(), image.height()));
      options.region = dwt::Rect{image.x0 + x0, image.y0 + y0, image.x0 + x1, image.y0 + y1};
      r = Region{0, 0, y1 - y0, x1 - x0};
      area = {y1 - y0, x1 - x0};
    }
    // Every component whole into a new array: as decode_batch, the
    // decoder's byte raster where the image fits bytes.
    std::vector<uint8_t> raster;
    const bool whole = !components && !region && !out;
    const Image image = decode_bytes(bytes, options, whole ? &raster : nullptr);
    if (!raster.empty()) return raster_array(image, std::move(raster));
    return image_to_array(image, std::move(components), r, reduce, area, squeeze, std::move(out));
  }

  void decode_to_file(const py::buffer& data, const std::filesystem::path& path, int reduce, int layers) {
    const py::buffer_info info = data.request();
    codec::DecodeOptions options;
    options.reduce = reduce;
    options.layers = layers;
    const Image image = decode_bytes(byte_span(info), options);
    const Status written = [&] {
      py::gil_scoped_release nogil;
      return io::write_image(image, path);
    }();
    throw_if_error(written);
  }

  // Buffers (each made one run of bytes by the package); every item decoded
  // whole at `reduce` and `layers`, then its `components` picked. With
  // `on_device`, a raster stays in device memory (DecodeItem::
  // raster_on_device) and comes back as a DeviceArray; the other items
  // come back as numpy arrays, which the package copies up.
  py::list decode_batch(const std::vector<py::buffer>& data, int reduce, int layers,
                        std::optional<std::vector<int>> components, bool squeeze, bool raise, bool on_device) {
    std::vector<py::buffer_info> infos;
    std::vector<DecodeItem> items(data.size());
    for (size_t i = 0; i < data.size(); ++i) {
      infos.push_back(data[i].request());
      items[i].data = byte_span(infos.back());
      // Every component whole: as bytes where the image fits them, the
      // decoder's samples interleaved as the array holds them (on the device
      // they come back so, never widened to int32 planes).
      items[i].raster = !components.has_value();
      items[i].raster_on_device = on_device;
    }
    codec::DecodeOptions options;
    options.reduce = reduce;
    options.layers = layers;
    std::vector<DecodeResult> results;
    {
      py::gil_scoped_release nogil;
      const std::lock_guard<std::mutex> one_call(calls_);
      results = engine_->decode_batch(items, options);
    }
    for (size_t i = 0; i < results.size(); ++i)
      if (results[i].status.ok()) warn_decode(results[i].report.warnings, "item " + std::to_string(i) + ": ");
    return batch_list(results, raise, [&](size_t, DecodeResult& r) {
      if (r.device_raster) return device_array_of_raster(std::move(r.device_raster), raster_shape(r.image));
      if (!r.raster.empty()) return py::object(raster_array(r.image, std::move(r.raster)));
      return py::object(image_to_array(r.image, components, std::nullopt, reduce, {0, 0}, squeeze, std::nullopt));
    });
  }

  std::string device() const {
    switch (engine_->options().device) {
      case Device::kCpu: return "cpu";
      case Device::kCuda: return "cuda";
      case Device::kAuto: break;
    }
    return "auto";
  }
  int threads() const { return engine_->options().threads; }
  bool device_started() const { return engine_->device_started(); }

 private:
  // `raster`, where given: Engine::decode's raster (decode.h).
  Image decode_bytes(std::span<const uint8_t> data, const codec::DecodeOptions& options,
                     std::vector<uint8_t>* raster = nullptr) {
    codec::DecodeReport report;
    auto image = [&] {
      py::gil_scoped_release nogil;
      const std::lock_guard<std::mutex> one_call(calls_);
      return engine_->decode(data, options, &report, raster);
    }();
    Image decoded = value_or_throw(std::move(image));
    warn_decode(report.warnings);
    return decoded;
  }

  std::unique_ptr<Engine> engine_;
  // An engine's calls from several Python threads run one at a time: a
  // single item's call holds the engine's one lane anyway, and the first
  // call prepares the placement, which two first calls at once would race on.
  std::mutex calls_;
};

}  // namespace

void bind_engine(py::module_& m) {
  py::class_<PyEngine>(m, "Engine", "mallat::Engine; use mallat.Engine, which checks the arguments.")
      .def(py::init<const std::string&, int>(), py::arg("device"), py::arg("threads"))
      .def("encode", &PyEngine::encode, py::arg("image"), py::arg("bits"), py::arg("options"))
      .def("encode_file", &PyEngine::encode_file, py::arg("path"), py::arg("options"))
      .def("encode_batch", &PyEngine::encode_batch, py::arg("images"), py::arg("bits"), py::arg("options"),
           py::arg("raise_errors"))
      .def("decode", &PyEngine::decode, py::arg("data"), py::arg("reduce"), py::arg("layers"),
           py::arg("components"), py::arg("region"), py::arg("squeeze"), py::arg("out"))
      .def("decode_to_file", &PyEngine::decode_to_file, py::arg("data"), py::arg("path"), py::arg("reduce"),
           py::arg("layers"))
      .def("decode_batch", &PyEngine::decode_batch, py::arg("data"), py::arg("reduce"), py::arg("layers"),
           py::arg("components"), py::arg("squeeze"), py::arg("raise_errors"), py::arg("on_device") = false)
      .def_property_readonly("device", &PyEngine::device)
      .def_property_readonly("threads", &PyEngine::threads)
      .def_property_readonly("device_started", &PyEngine::device_started);
}

}  // namespace mallat::python
