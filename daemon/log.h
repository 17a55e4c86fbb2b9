// The daemon's log. Under systemd (stderr is the journal: JOURNAL_STREAM names its device and
// inode) each message goes to the journal with sd_journal_send's structured fields: PRIORITY,
// SYSLOG_IDENTIFIER=earshotd and the event's own (EARSHOT_EVENT=wake, EARSHOT_KEYWORD=computer,
// EARSHOT_REQUEST=3), so `journalctl -u earshotd EARSHOT_EVENT=wake` finds every wake. Elsewhere
// (a terminal, a test) one line on stderr: "earshotd: MESSAGE".
#pragma once

#include <syslog.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace earshot::daemon {

// One field of a journal entry: NAME (capitals, digits, '_') = value.
struct LogField {
  std::string_view name;
  std::string value;
};

[[gnu::format(printf, 2, 3)]] void Log(int priority, const char* format, ...);
[[gnu::format(printf, 3, 4)]] void LogEvent(int priority, std::initializer_list<LogField> fields,
                                            const char* format, ...);

// The pieces of these functions, for tests: whether JOURNAL_STREAM ("DEVICE:INODE", or null)
// names `fd`'s file; the entry's "NAME=value" strings, MESSAGE first.
bool IsJournalStream(const char* journal_stream, int fd);
std::vector<std::string> JournalEntry(int priority, std::string_view message,
                                      std::initializer_list<LogField> fields);

}  // namespace earshot::daemon
