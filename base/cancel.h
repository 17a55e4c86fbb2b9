// CancelFlag: a request, raised on one thread, that a long computation on another stop at its next
// step. The computation takes a `const CancelFlag*` (null: it is never cancelled) and asks
// Cancelled() between its steps; a step already under way (a library call) runs to its end.
#pragma once

#include <atomic>

namespace earshot {

class CancelFlag {
 public:
  void Raise() { raised_.store(true, std::memory_order_relaxed); }
  bool raised() const { return raised_.load(std::memory_order_relaxed); }

 private:
  std::atomic<bool> raised_{false};
};

inline bool Cancelled(const CancelFlag* flag) { return flag != nullptr && flag->raised(); }

// The error of a computation that stopped because it was cancelled.
inline constexpr const char* kCancelledMessage = "cancelled";

}  // namespace earshot
