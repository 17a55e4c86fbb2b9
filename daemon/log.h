// One line per message on stderr, which systemd passes to the journal: "<N>" syslog priority
// prefixes when stderr is the journal (JOURNAL_STREAM is set), "earshotd: " otherwise.
#pragma once

#include <syslog.h>

namespace earshot::daemon {

[[gnu::format(printf, 2, 3)]] void Log(int priority, const char* format, ...);

}  // namespace earshot::daemon
