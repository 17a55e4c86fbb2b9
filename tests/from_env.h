// An environment variable's value, or `fallback` when it is unset or empty: the model and vector
// files a test reads, which the training smoke test points at what it just trained.
#pragma once

#include <cstdlib>
#include <string>

namespace earshot::testing_util {

inline std::string FromEnv(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != 0 ? v : fallback;
}

}  // namespace earshot::testing_util
