#include "daemon/log.h"

#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <systemd/sd-journal.h>

#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace earshot::daemon {

bool IsJournalStream(const char* journal_stream, int fd) {
  if (journal_stream == nullptr) return false;
  uintmax_t device = 0, inode = 0;
  if (std::sscanf(journal_stream, "%ju:%ju", &device, &inode) != 2) return false;
  struct stat st;
  if (fstat(fd, &st) != 0) return false;
  return st.st_dev == device && st.st_ino == inode;
}

std::vector<std::string> JournalEntry(int priority, std::string_view message,
                                      std::initializer_list<LogField> fields) {
  std::vector<std::string> entry = {"MESSAGE=" + std::string(message),
                                    "PRIORITY=" + std::to_string(priority),
                                    "SYSLOG_IDENTIFIER=earshotd"};
  for (const LogField& field : fields) entry.push_back(std::string(field.name) + "=" + field.value);
  return entry;
}

namespace {

void Write(int priority, std::initializer_list<LogField> fields, const char* format,
           va_list args) {
  static const bool journal = IsJournalStream(std::getenv("JOURNAL_STREAM"), STDERR_FILENO);
  char message[1024];
  std::vsnprintf(message, sizeof message, format, args);
  if (journal) {
    const std::vector<std::string> entry = JournalEntry(priority, message, fields);
    std::vector<iovec> parts;
    for (const std::string& part : entry) {
      parts.push_back({const_cast<char*>(part.data()), part.size()});
    }
    if (sd_journal_sendv(parts.data(), static_cast<int>(parts.size())) >= 0) return;
    std::fprintf(stderr, "<%d>%s\n", priority, message);  // the journal's socket refused it
    return;
  }
  std::fprintf(stderr, "earshotd: %s\n", message);
}

}  // namespace

void Log(int priority, const char* format, ...) {
  va_list args;
  va_start(args, format);
  Write(priority, {}, format, args);
  va_end(args);
}

void LogEvent(int priority, std::initializer_list<LogField> fields, const char* format, ...) {
  va_list args;
  va_start(args, format);
  Write(priority, fields, format, args);
  va_end(args);
}

}  // namespace earshot::daemon
