// The sub-commands of `earshot`, one file each (cmd_*.cc), and what they share beyond the command
// line of every program (cli/cli.h): the start of a command, its messages, the bundled sample.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "cli/cli.h"
#include "config/config.h"

namespace earshot::cli {

extern const Command kRunCommand;
extern const Command kFeaturesCommand;
extern const Command kVadCommand;
extern const Command kKwsCommand;
extern const Command kTranscribeCommand;
extern const Command kBenchCommand;
extern const Command kPronounceCommand;
extern const Command kCancelEchoCommand;

// The start of every command: the config, or nothing when the command is already done: the config
// could not be loaded (error printed, `status` set) or --print-config printed it (`status` 0).
std::optional<config::Config> SetUp(const Args& args, int* status);

// One line on stderr: "earshot: MESSAGE".
void PrintError(std::string_view message);
// One line on stderr: "earshot: warning: MESSAGE" (the command goes on).
void PrintWarning(std::string_view message);

// The bundled sample recording used when `earshot run` is given no file.
std::string DefaultSamplePath();

}  // namespace earshot::cli
