#include "config/command_line.h"

#include <getopt.h>

#include <algorithm>

namespace earshot::config {

std::string CommandLine::Option(std::string_view name, std::string_view fallback) const {
  for (auto it = options.rbegin(); it != options.rend(); ++it) {
    if (it->first == name) return it->second;
  }
  return std::string(fallback);
}

std::vector<std::string> CommandLine::All(std::string_view name) const {
  std::vector<std::string> values;
  for (const auto& [n, v] : options) {
    if (n == name) values.push_back(v);
  }
  return values;
}

bool CommandLine::Has(std::string_view name) const {
  return std::any_of(options.begin(), options.end(),
                     [name](const auto& o) { return o.first == name; });
}

namespace {

// getopt_long's table: every option's name without its dashes, `val` kFirstIndex + its index in
// `names` (above every character getopt_long returns itself).
constexpr int kFirstIndex = 256;

std::vector<option> OptionTable(const CommandLineSpec& spec, std::vector<std::string>& names) {
  std::vector<option> table;
  auto add = [&](std::string_view name, int has_arg) {
    names.emplace_back(name);
    table.push_back({nullptr, has_arg, nullptr, kFirstIndex + static_cast<int>(names.size() - 1)});
  };
  for (std::string_view name : spec.value_options) add(name, required_argument);
  for (std::string_view name : spec.flag_options) add(name, no_argument);
  for (size_t i = 0; i < table.size(); ++i) table[i].name = names[i].c_str() + 2;
  table.push_back({nullptr, 0, nullptr, 0});
  return table;
}

bool IsHelp(std::string_view name) { return name == "--help"; }

}  // namespace

Result<CommandLine> ParseCommandLine(const CommandLineSpec& spec, int argc, char** argv,
                                     int first) {
  std::vector<std::string> names;
  names.reserve(spec.value_options.size() + spec.flag_options.size());
  const std::vector<option> table = OptionTable(spec, names);
  const bool short_help = std::any_of(spec.flag_options.begin(), spec.flag_options.end(), IsHelp);
  // getopt_long reads argv[optind..] and counts argv[0] as the program: hand it argv[first - 1..].
  int count = argc - first + 1;
  char** args = argv + first - 1;
  const std::string unknown_hint = " (see " + std::string(spec.program) + " --help)";
  CommandLine line;
  optind = 0;  // GNU: start over (the parser may run more than once in a process)
  opterr = 0;  // the errors are ours
  for (;;) {
    int index = -1;
    const int c = getopt_long(count, args, short_help ? ":h" : ":", table.data(), &index);
    if (c == -1) break;
    if (c == 'h') {
      line.options.emplace_back("--help", "1");
    } else if (c == ':') {
      return Error{std::string(args[optind - 1]) + " needs a value"};
    } else if (c < kFirstIndex) {  // '?': not one of ours
      return Error{"unknown option " + std::string(args[optind - 1]) + unknown_hint};
    } else {
      const int k = c - kFirstIndex;
      line.options.emplace_back(names[k], table[k].has_arg == required_argument ? optarg : "1");
    }
  }
  for (int i = optind; i < count; ++i) line.positional.emplace_back(args[i]);
  return line;
}

}  // namespace earshot::config
