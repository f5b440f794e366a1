#include "python/src/device_array.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#if MALLAT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include <pybind11/stl.h>

#include "codec/stages/device_raster.h"
#include "python/src/errors.h"

namespace py = pybind11;

namespace mallat::python {
namespace {

// DLPack's ABI (dlpack.h, version 0.8: the structs every consumer of
// __dlpack__ without a version reads), declared here as the standard gives it.
struct DLDevice {
  int32_t device_type;  // 1: kDLCPU, 2: kDLCUDA
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;  // 0: kDLInt, 1: kDLUInt
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; null: C order
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};
constexpr int32_t kDLCPU = 1, kDLCUDA = 2;
constexpr uint8_t kDLInt = 0, kDLUInt = 1;

[[noreturn]] void no_device(const std::string& what) {
  throw CodecError(Status(ErrorCode::kDeviceError, what));
}

#if MALLAT_HAVE_CUDA
void check(cudaError_t error, const char* what) {
  if (error != cudaSuccess) no_device(std::string(what) + ": " + cudaGetErrorString(error));
}
#endif

// Device 0's memory from the decoder's pool of rasters (device_raster.h: no
// cudaMalloc per array), freed when the last holder (the array, or a
// consumer's DLManagedTensor) lets go.
std::shared_ptr<void> device_alloc(size_t bytes) {
  Result<std::shared_ptr<uint8_t>> memory = codec::make_device_raster(bytes);
  if (!memory.ok()) throw CodecError(memory.status());
  return std::move(*memory);
}

void copy(void* dst, const void* src, size_t bytes, bool to_device) {
#if MALLAT_HAVE_CUDA
  check(cudaMemcpy(dst, src, bytes, to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost), "cudaMemcpy");
#else
  (void)dst;
  (void)src;
  (void)bytes;
  (void)to_device;
  no_device("this build of mallat has no CUDA");
#endif
}

int device_count() {
#if MALLAT_HAVE_CUDA
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
#else
  return 0;
#endif
}

// What a DLManagedTensor handed out keeps alive: the memory and the shape.
struct Export {
  std::shared_ptr<void> memory;
  std::vector<int64_t> shape;
  DLManagedTensor managed{};
};

class DeviceArray {
 public:
  // A C-ordered copy of a host array (already made contiguous by the
  // caller) in the current device's memory.
  explicit DeviceArray(const py::array& host) : dtype_(host.dtype()) {
    for (py::ssize_t i = 0; i < host.ndim(); ++i) shape_.push_back(host.shape(i));
    bytes_ = static_cast<size_t>(host.nbytes());
    const std::string kind = dtype_.attr("kind").cast<std::string>();
    item_ = dtype_.attr("itemsize").cast<int>();
    code_ = kind == "u" ? kDLUInt : kDLInt;
    const void* src = host.data();
    py::gil_scoped_release nogil;
    memory_ = device_alloc(bytes_);
    copy(memory_.get(), src, bytes_, true);
  }

  // A decode's raster in device memory, owned as it is: bytes, C order.
  DeviceArray(std::shared_ptr<void> memory, std::vector<int64_t> shape)
      : dtype_(py::dtype::of<uint8_t>()), shape_(std::move(shape)), memory_(std::move(memory)) {
    bytes_ = 1;
    for (int64_t n : shape_) bytes_ *= static_cast<size_t>(n);
  }

  py::tuple dlpack_device() const { return py::make_tuple(kDLCUDA, device_); }

  // The copy to the device finished before the constructor returned, so a
  // consumer on any stream may read it at once.
  py::capsule dlpack(const py::object& /*stream*/) const {
    auto* e = new Export{memory_, shape_, {}};
    DLTensor& t = e->managed.dl_tensor;
    t.data = memory_.get();
    t.device = {kDLCUDA, device_};
    t.ndim = static_cast<int32_t>(shape_.size());
    t.dtype = {code_, static_cast<uint8_t>(item_ * 8), 1};
    t.shape = e->shape.data();
    t.strides = nullptr;
    t.byte_offset = 0;
    e->managed.manager_ctx = e;
    e->managed.deleter = [](DLManagedTensor* self) { delete static_cast<Export*>(self->manager_ctx); };
    // A capsule still named "dltensor" when collected was never consumed.
    return py::capsule(&e->managed, "dltensor", [](PyObject* capsule) {
      if (PyCapsule_IsValid(capsule, "dltensor")) {
        auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
        m->deleter(m);
      }
    });
  }

  py::array to_host() const {
    py::array host(dtype_, shape_);
    void* dst = host.mutable_data();
    {
      py::gil_scoped_release nogil;
      copy(dst, memory_.get(), bytes_, false);
    }
    return host;
  }

  py::tuple shape() const { return py::tuple(py::cast(shape_)); }
  py::dtype dtype() const { return dtype_; }
  int device() const { return device_; }

 private:
  py::dtype dtype_;
  std::vector<int64_t> shape_;
  size_t bytes_ = 0;
  int item_ = 1;
  uint8_t code_ = kDLUInt;
  int device_ = 0;  // the decoder's rasters are on device 0
  std::shared_ptr<void> memory_;
};

// The samples of a DLPack capsule (an integer tensor of 2 or 3 dimensions,
// in C order) as a new host array; a CUDA tensor is copied from the device.
py::array host_array_from_dlpack(const py::capsule& capsule) {
  if (!PyCapsule_IsValid(capsule.ptr(), "dltensor"))
    throw CodecError(invalid_argument("the image's __dlpack__() gave no unconsumed DLPack capsule"));
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  const DLTensor& t = managed->dl_tensor;
  std::unique_ptr<DLManagedTensor, void (*)(DLManagedTensor*)> owned(
      managed, [](DLManagedTensor* m) { if (m->deleter) m->deleter(m); });
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");
  if (t.ndim != 2 && t.ndim != 3)
    throw CodecError(invalid_argument("the image has " + std::to_string(t.ndim) +
                                      " dimensions; mallat takes (height, width) or (height, width, channels)"));
  const int bits = t.dtype.bits;
  if ((t.dtype.code != kDLInt && t.dtype.code != kDLUInt) || t.dtype.lanes != 1 ||
      (bits != 8 && bits != 16 && bits != 32))
    throw CodecError(invalid_argument("the image's DLPack dtype (code " + std::to_string(t.dtype.code) + ", " +
                                      std::to_string(bits) + " bits) is not one of mallat's integer dtypes"));
  std::vector<py::ssize_t> shape(t.shape, t.shape + t.ndim);
  if (t.strides) {
    int64_t expected = 1;
    for (int i = t.ndim - 1; i >= 0; --i) {
      if (t.shape[i] != 1 && t.strides[i] != expected)
        throw CodecError(invalid_argument("the device image is not in C order; make it contiguous first"));
      expected *= t.shape[i];
    }
  }
  const std::string format = std::string(t.dtype.code == kDLUInt ? "u" : "i") + std::to_string(bits / 8);
  py::array host(py::dtype(format), shape);
  const auto* src = static_cast<const uint8_t*>(t.data) + t.byte_offset;
  if (t.device.device_type == kDLCUDA) {
    void* dst = host.mutable_data();
    const size_t bytes = static_cast<size_t>(host.nbytes());
    py::gil_scoped_release nogil;
    copy(dst, src, bytes, false);
  } else if (t.device.device_type == kDLCPU) {
    std::memcpy(host.mutable_data(), src, static_cast<size_t>(host.nbytes()));
  } else {
    throw CodecError(invalid_argument("the image is on DLPack device type " + std::to_string(t.device.device_type) +
                                      "; mallat reads the CPU's and CUDA's"));
  }
  return host;
}

}  // namespace

py::object device_array_of_raster(std::shared_ptr<uint8_t> raster, std::vector<int64_t> shape) {
  return py::cast(DeviceArray(std::shared_ptr<void>(std::move(raster)), std::move(shape)));
}

void bind_device_arrays(py::module_& m) {
  py::class_<DeviceArray>(m, "DeviceArray",
                          "An array in CUDA device 0's memory, exported through DLPack (torch.from_dlpack).")
      .def(py::init<const py::array&>(), py::arg("host"))
      .def("__dlpack__", &DeviceArray::dlpack, py::kw_only(), py::arg("stream") = py::none())
      .def("__dlpack_device__", &DeviceArray::dlpack_device)
      .def("to_host", &DeviceArray::to_host)
      .def_property_readonly("shape", &DeviceArray::shape)
      .def_property_readonly("dtype", &DeviceArray::dtype)
      .def_property_readonly("device", &DeviceArray::device);
  m.def("cuda_device_count", &device_count);
  m.def("host_array_from_dlpack", &host_array_from_dlpack, py::arg("capsule"));
}

}  // namespace mallat::python
