// mallat._mallat: the codec for Python. The package around it (python/mallat)
// checks and normalises the arguments; the coding runs on an Engine
// (engine.h), the image files are read and written here, each with the GIL
// released, so that calls from several Python threads work at the same time.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <filesystem>
#include <optional>

#include "io/image_io.h"
#include "python/src/array_image.h"
#include "python/src/arrays.h"
#include "python/src/device_array.h"
#include "python/src/engine.h"
#include "python/src/errors.h"
#include "python/src/stream_info.h"

namespace py = pybind11;

namespace mallat::python {
namespace {

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
  m.doc() = "mallat's JPEG 2000 codec; use the mallat package, which checks the arguments.";
  mp::register_error_translator();
  mp::bind_engine(m);
  mp::bind_device_arrays(m);
  m.def("read_image", &mp::read_image, py::arg("path"));
  m.def("write_image", &mp::write_image, py::arg("path"), py::arg("image"), py::arg("bits"));
  m.def("info", &mp::info, py::arg("data"));
}
