// The sub-commands of `earshot`, one file each (cmd_*.cc), and what they share beyond the command
// line of every program (cli/cli.h): the start of a command, its messages, the bundled sample.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "cli/cli.h"
#include "config/config.h"

namespace earshot::tools {

extern const cli::Command kRunCommand;
extern const cli::Command kFeaturesCommand;
extern const cli::Command kVadCommand;
extern const cli::Command kKwsCommand;
extern const cli::Command kTranscribeCommand;
extern const cli::Command kBenchCommand;
extern const cli::Command kPronounceCommand;
extern const cli::Command kCancelEchoCommand;

// The start of every command: the config, or nothing when the command is already done: the config
// could not be loaded (error printed, `status` set) or --print-config printed it (`status` 0).
std::optional<config::Config> SetUp(const cli::Args& args, int* status);

// One line on stderr: "earshot: MESSAGE".
void PrintError(std::string_view message);
// One line on stderr: "earshot: warning: MESSAGE" (the command goes on).
void PrintWarning(std::string_view message);

// The bundled sample recording used when `earshot run` is given no file.
std::string DefaultSamplePath();

}  // namespace earshot::tools
