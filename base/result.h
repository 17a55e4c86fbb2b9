// Result<T>: a value or an error message, returned by every fallible call in earshot.
// Library code never exits or throws across its API; only main() turns an error into an exit status.
// (C++20 has no std::expected; this is the small subset earshot needs.)
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace earshot {

struct Error {
  std::string message;  // names the file or key and the cause, ready for one stderr line
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}       // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}   // NOLINT: implicit by design

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  const Error& error() const { return std::get<1>(v_); }
  T value_or(T fallback) && { return ok() ? std::get<0>(std::move(v_)) : std::move(fallback); }

 private:
  std::variant<T, Error> v_;
};

// Status: a Result with no value.
struct Ok {};
using Status = Result<Ok>;
inline Status OkStatus() { return Ok{}; }

}  // namespace earshot
