// The command line of earshot's programs (`earshot`'s sub-commands, earshot-wyoming): the options
// every one takes (--config, --set, --print-config, --help), the config they give, and the exit
// statuses of DESIGN.md. What only `earshot` uses is tools/commands.h.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "config/command_line.h"
#include "config/config.h"

namespace earshot::cli {

enum ExitStatus { kExitOk = 0, kExitRuntime = 1, kExitUsage = 2 };

// One sub-command's arguments after parsing: every option as name -> value pairs (Option, Has), the
// rest positional; the options every command takes also here.
struct Args : config::CommandLine {
  std::string config_path;
  std::vector<std::string> sets;
  bool print_config = false;
  bool help = false;
};

struct Command {
  std::string_view name;
  std::string_view synopsis;     // one line for `earshot --help`
  std::string_view usage;        // full `--help` text
  std::vector<std::string_view> value_options;  // command options that take a value
  std::vector<std::string_view> flag_options;   // command options without a value (set to "1")
  int (*run)(const Args& args);
};

// Parses argv[first..] for `command` (config::ParseCommandLine); a usage error names the bad
// argument.
Result<Args> Parse(const Command& command, int argc, char** argv, int first);

// Defaults + --config file + --set overrides; on failure the error and the exit status to use.
Result<config::Config> LoadConfig(const Args& args, int* status);

}  // namespace earshot::cli
