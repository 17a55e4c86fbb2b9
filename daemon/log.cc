#include "daemon/log.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace earshot::daemon {

void Log(int priority, const char* format, ...) {
  static const bool journal = std::getenv("JOURNAL_STREAM") != nullptr;
  char message[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof message, format, args);
  va_end(args);
  if (journal) {
    std::fprintf(stderr, "<%d>%s\n", priority, message);
  } else {
    std::fprintf(stderr, "earshotd: %s\n", message);
  }
}

}  // namespace earshot::daemon
