// daemon/log.h: when stderr is the journal and what a journal entry holds.
#include "daemon/log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace earshot::daemon {
namespace {

std::string StreamOf(int fd) {
  struct stat st;
  EXPECT_EQ(fstat(fd, &st), 0);
  return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
}

TEST(JournalStream, OnlyTheFileItNames) {
  const int fd = open("/dev/null", O_WRONLY);
  ASSERT_GE(fd, 0);
  const int other = open("/proc/self/exe", O_RDONLY);
  ASSERT_GE(other, 0);
  EXPECT_TRUE(IsJournalStream(StreamOf(fd).c_str(), fd));
  EXPECT_FALSE(IsJournalStream(StreamOf(other).c_str(), fd));  // a journal stream, not this one
  EXPECT_FALSE(IsJournalStream(nullptr, fd));                  // not under systemd
  EXPECT_FALSE(IsJournalStream("", fd));
  EXPECT_FALSE(IsJournalStream("not:numbers", fd));
  close(fd);
  close(other);
}

TEST(JournalEntry, MessagePriorityIdentifierThenTheEventsFields) {
  const std::vector<std::string> entry =
      JournalEntry(LOG_INFO, "wake word hey kitchen (score 0.91) at 1.20 s",
                   {{"EARSHOT_EVENT", "wake"},
                    {"EARSHOT_KEYWORD", "hey kitchen"},
                    {"EARSHOT_REQUEST", "3"}});
  EXPECT_EQ(entry, (std::vector<std::string>{"MESSAGE=wake word hey kitchen (score 0.91) at 1.20 s",
                                             "PRIORITY=6", "SYSLOG_IDENTIFIER=earshotd",
                                             "EARSHOT_EVENT=wake", "EARSHOT_KEYWORD=hey kitchen",
                                             "EARSHOT_REQUEST=3"}));
}

}  // namespace
}  // namespace earshot::daemon
