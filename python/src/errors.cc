#include "python/src/errors.h"

#include <pybind11/pybind11.h>

namespace py = pybind11;

namespace mallat::python {

const char* exception_class_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument: return "InvalidArgumentError";
    case ErrorCode::kIoError: return "FileError";
    case ErrorCode::kCorruptData: return "CorruptDataError";
    case ErrorCode::kUnsupported: return "UnsupportedError";
    case ErrorCode::kResourceLimit: return "ResourceLimitError";
    case ErrorCode::kDeviceError: return "DeviceError";
    case ErrorCode::kOk:
    case ErrorCode::kInternal: break;
  }
  return "InternalError";
}

void register_error_translator() {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const CodecError& e) {
      // The classes live in Python (mallat/errors.py) so that they can
      // derive from both mallat.Error and ValueError, OSError, ...
      py::object cls = py::module_::import("mallat.errors").attr(exception_class_name(e.code()));
      PyErr_SetString(cls.ptr(), e.what());
    }
  });
}

}  // namespace mallat::python
