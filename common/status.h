// Errors are values at module boundaries: a [[nodiscard]] Status, or a Result<T>
// that holds either a value or the Status that says why not.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace mallat {

enum class ErrorCode {
  kOk = 0,
  kInvalidArgument,   // a caller passed something out of range
  kIoError,           // the file system refused (open, read, write, rename)
  kCorruptData,       // the input is malformed or truncated
  kUnsupported,       // legal input that this build cannot handle
  kResourceLimit,     // the input asks for more memory or work than allowed
  kDeviceError,       // a CUDA call failed, or no device is present
  kInternal,          // a bug in mallat
};

const char* error_code_name(ErrorCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == ErrorCode::kOk; }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // "corrupt data: <message>"
  std::string to_string() const;

  // Prefix the message with context, e.g. the file name: "a.pgx: truncated".
  Status with_context(const std::string& context) const;

 private:
  ErrorCode code_ = ErrorCode::kOk;
  std::string message_;
};

inline Status invalid_argument(std::string m) { return {ErrorCode::kInvalidArgument, std::move(m)}; }
inline Status io_error(std::string m) { return {ErrorCode::kIoError, std::move(m)}; }
inline Status corrupt_data(std::string m) { return {ErrorCode::kCorruptData, std::move(m)}; }
inline Status unsupported(std::string m) { return {ErrorCode::kUnsupported, std::move(m)}; }
inline Status resource_limit(std::string m) { return {ErrorCode::kResourceLimit, std::move(m)}; }
inline Status device_error(std::string m) { return {ErrorCode::kDeviceError, std::move(m)}; }
inline Status internal_error(std::string m) { return {ErrorCode::kInternal, std::move(m)}; }

// A value, or the Status that explains its absence.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    assert(!status_.ok() && "a Result needs a value or an error");
    if (status_.ok()) status_ = internal_error("Result built from an OK status without a value");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  T& value() & { assert(ok()); return *value_; }
  const T& value() const& { assert(ok()); return *value_; }
  T&& value() && { assert(ok()); return std::move(*value_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace mallat

#define MALLAT_CONCAT_INNER_(a, b) a##b
#define MALLAT_CONCAT_(a, b) MALLAT_CONCAT_INNER_(a, b)

// Return the Status if it is an error.
#define MALLAT_RETURN_IF_ERROR(expr)             \
  do {                                           \
    ::mallat::Status mallat_status_ = (expr);    \
    if (!mallat_status_.ok()) return mallat_status_; \
  } while (0)

// `MALLAT_ASSIGN_OR_RETURN(auto x, f());` declares x from a Result or returns its error.
#define MALLAT_ASSIGN_OR_RETURN(decl, expr) \
  MALLAT_ASSIGN_OR_RETURN_IMPL_(MALLAT_CONCAT_(mallat_result_, __LINE__), decl, expr)
#define MALLAT_ASSIGN_OR_RETURN_IMPL_(tmp, decl, expr) \
  auto tmp = (expr);                                   \
  if (!tmp.ok()) return tmp.status();                  \
  decl = std::move(tmp).value()
