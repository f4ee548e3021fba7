#pragma once
// Errors on the hot path are values (docs/architecture.md, "Errors"): a Result<T> holds either a
// value or an Error whose message carries its context ("read ports/1/counters/symbol_error:
// EINVAL").

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <variant>

namespace fabricmon {

struct Error {
  std::string message;  ///< what failed, with context
  int errnum = 0;       ///< errno when the failure came from a system call, else 0
};

/// "context: ENAME" for a system-call failure (strerrorname_np gives the symbolic name, glibc ≥ 2.32).
inline Error sysError(std::string context, int errnum) {
  const char* name = strerrorname_np(errnum);
  context += ": ";
  context += name != nullptr ? name : std::to_string(errnum);
  return Error{std::move(context), errnum};
}

/// A value or an Error, shaped like std::expected (C++23) so it can be swapped for it later.
template <typename T>
class Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

/// Success or an Error.
class Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT: implicit by design
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

}  // namespace fabricmon
