// The command lines of earshot's programs (earshot's commands, earshotd, earshot-wyoming), parsed
// by one parser on getopt_long: long options with a value as `--name VALUE` or `--name=VALUE`,
// flags, `-h` for `--help`, `--` ending the options, `-` a positional (standard input). Usage
// errors have one wording for every program: "unknown option --x (see PROGRAM --help)", "--x
// needs a value"; the caller prints them after its own name and exits with status 2.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace earshot::config {

struct CommandLineSpec {
  std::string_view program;                     // as the errors name it: "earshot run", "earshotd"
  std::vector<std::string_view> value_options;  // "--config", ...: each takes a value
  std::vector<std::string_view> flag_options;   // "--help", ...: none
};

struct CommandLine {
  // The options in the order given, flags with the value "1".
  std::vector<std::pair<std::string, std::string>> options;
  std::vector<std::string> positional;

  // The last value given to `name`, or `fallback` when it was not given.
  std::string Option(std::string_view name, std::string_view fallback = "") const;
  // Every value given to `name`, in order (options that may repeat, such as --set).
  std::vector<std::string> All(std::string_view name) const;
  bool Has(std::string_view name) const;
};

// Parses argv[first..]. `--help` (or `-h`) must be in `spec.flag_options` to be accepted.
Result<CommandLine> ParseCommandLine(const CommandLineSpec& spec, int argc, char** argv,
                                     int first);

}  // namespace earshot::config
