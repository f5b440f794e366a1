#include "python/src/errors.h"

#include <cerrno>
#include <cstring>

namespace py = pybind11;

namespace mallat::python {

const char* exception_class_name(ErrorCode code, const std::string& message) {
  switch (code) {
    case ErrorCode::kInvalidArgument: return "InvalidArgumentError";
    case ErrorCode::kIoError:
      // io's messages end with the system's text for errno (io/file.cc).
      return message.find(std::strerror(ENOENT)) != std::string::npos ? "MissingFileError" : "FileError";
    case ErrorCode::kCorruptData: return "CorruptDataError";
    case ErrorCode::kUnsupported: return "UnsupportedError";
    case ErrorCode::kResourceLimit: return "ResourceLimitError";
    case ErrorCode::kDeviceError: return "DeviceError";
    case ErrorCode::kOk:
    case ErrorCode::kInternal: break;
  }
  return "InternalError";
}

namespace {

py::object exception_class(ErrorCode code, const std::string& message) {
  // The classes live in Python (mallat/errors.py) so that they can derive
  // from both mallat.Error and ValueError, OSError, ...
  return py::module_::import("mallat.errors").attr(exception_class_name(code, message));
}

}  // namespace

py::object exception_for(const Status& status) {
  return exception_class(status.code(), status.message())(status.message());
}

void register_error_translator() {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const CodecError& e) {
      PyErr_SetString(exception_class(e.code(), e.what()).ptr(), e.what());
    }
  });
}

}  // namespace mallat::python
