// The codec's errors as Python exceptions: a Status that is not OK is thrown
// as CodecError, which the module's translator turns into the exception class
// of mallat.errors that matches its ErrorCode, carrying the codec's message.
#pragma once

#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>

#include "common/status.h"

namespace mallat::python {

class CodecError : public std::runtime_error {
 public:
  explicit CodecError(const Status& status) : std::runtime_error(status.message()), code_(status.code()) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

inline void throw_if_error(const Status& status) {
  if (!status.ok()) throw CodecError(status);
}

template <typename T>
T value_or_throw(Result<T>&& result) {
  throw_if_error(result.status());
  return std::move(result).value();
}

// The name of the mallat.errors class for an error ("CorruptDataError",
// ...): a file that does not exist is a MissingFileError (a FileError and a
// FileNotFoundError).
const char* exception_class_name(ErrorCode code, const std::string& message);

// The exception of mallat.errors for an error that is not OK, not raised.
pybind11::object exception_for(const Status& status);

// Registers the translator from CodecError to mallat.errors' classes.
void register_error_translator();

}  // namespace mallat::python
