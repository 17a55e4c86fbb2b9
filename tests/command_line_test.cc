#include "config/command_line.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace earshot::config {
namespace {

const CommandLineSpec kSpec{"earshot run", {"--config", "--set"}, {"--help", "--verified"}};

// argv for `words`, the program's name first.
Result<CommandLine> Parse(const CommandLineSpec& spec, std::vector<std::string> words) {
  words.insert(words.begin(), "earshot");
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  return ParseCommandLine(spec, static_cast<int>(words.size()), argv.data(), 1);
}

TEST(CommandLine, ValuesFlagsAndPositionalsInAnyOrder) {
  auto line =
      Parse(kSpec, {"a.wav", "--set", "x=1", "--set=y=-2", "--verified", "-", "--config=c"});
  ASSERT_TRUE(line.ok()) << line.error().message;
  EXPECT_EQ(line->positional, (std::vector<std::string>{"a.wav", "-"}));
  EXPECT_EQ(line->All("--set"), (std::vector<std::string>{"x=1", "y=-2"}));
  EXPECT_EQ(line->Option("--config"), "c");
  EXPECT_TRUE(line->Has("--verified"));
  EXPECT_FALSE(line->Has("--help"));
  EXPECT_EQ(line->Option("--missing", "fallback"), "fallback");
}

TEST(CommandLine, DoubleDashEndsTheOptions) {
  auto line = Parse(kSpec, {"--verified", "--", "--set", "-h"});
  ASSERT_TRUE(line.ok()) << line.error().message;
  EXPECT_EQ(line->positional, (std::vector<std::string>{"--set", "-h"}));
}

TEST(CommandLine, ShortHelpOnlyWhereHelpIsAnOption) {
  auto line = Parse(kSpec, {"-h"});
  ASSERT_TRUE(line.ok());
  EXPECT_TRUE(line->Has("--help"));
  const CommandLineSpec no_help{"earshotd", {"--config"}, {}};
  auto refused = Parse(no_help, {"-h"});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message, "unknown option -h (see earshotd --help)");
}

TEST(CommandLine, UsageErrorsHaveOneWording) {
  auto unknown = Parse(kSpec, {"a.wav", "--bogus=3"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message, "unknown option --bogus=3 (see earshot run --help)");
  auto no_value = Parse(kSpec, {"a.wav", "--set"});
  ASSERT_FALSE(no_value.ok());
  EXPECT_EQ(no_value.error().message, "--set needs a value");
  auto flag_value = Parse(kSpec, {"--verified=1"});
  ASSERT_FALSE(flag_value.ok());
  EXPECT_NE(flag_value.error().message.find("--verified=1"), std::string::npos);
}

TEST(CommandLine, ParsesAgainInTheSameProcess) {
  for (int i = 0; i < 3; ++i) {
    auto line = Parse(kSpec, {"--set", "a=1", "b.wav"});
    ASSERT_TRUE(line.ok()) << line.error().message;
    EXPECT_EQ(line->positional, std::vector<std::string>{"b.wav"});
  }
}

}  // namespace
}  // namespace earshot::config
