#include "daemon/wakeup.h"

#include <unistd.h>

#include <cstdint>

namespace earshot::daemon {

void SignalWakeup(int fd) {
  const uint64_t one = 1;
  [[maybe_unused]] ssize_t n = write(fd, &one, sizeof one);
}

void DrainWakeup(int fd) {
  uint64_t count = 0;
  [[maybe_unused]] ssize_t n = read(fd, &count, sizeof count);
}

}  // namespace earshot::daemon
