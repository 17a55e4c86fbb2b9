#include "tools/cli.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "config/paths.h"

namespace earshot::cli {

std::string Args::Option(std::string_view name, std::string_view fallback) const {
  for (auto it = options.rbegin(); it != options.rend(); ++it) {
    if (it->first == name) return it->second;
  }
  return std::string(fallback);
}

bool Args::Has(std::string_view name) const {
  return std::any_of(options.begin(), options.end(),
                     [name](const auto& o) { return o.first == name; });
}

Result<Args> Parse(const Command& command, int argc, char** argv, int first) {
  Args args;
  // A program of its own (earshot-wyoming) prefixes its name itself; a sub-command's errors name it.
  const bool program = command.name.starts_with("earshot-");
  const std::string full_name = (program ? "" : "earshot ") + std::string(command.name);
  const std::string prefix = program ? "" : full_name + ": ";
  for (int i = first; i < argc; ++i) {
    std::string_view arg = argv[i];
    std::string_view name = arg;
    std::string value;
    bool has_inline_value = false;
    if (arg.starts_with("--") && arg.find('=') != std::string_view::npos) {
      name = arg.substr(0, arg.find('='));
      value = std::string(arg.substr(arg.find('=') + 1));
      has_inline_value = true;
    }
    auto take_value = [&]() -> Result<std::string> {
      if (has_inline_value) return value;
      if (i + 1 >= argc) return Error{prefix + std::string(name) + " needs a value"};
      return std::string(argv[++i]);
    };
    if (name == "--help" || name == "-h") {
      args.help = true;
    } else if (name == "--print-config") {
      args.print_config = true;
    } else if (std::find(command.flag_options.begin(), command.flag_options.end(), name) !=
               command.flag_options.end()) {
      args.options.emplace_back(std::string(name), "1");
    } else if (name == "--config" || name == "--set") {
      Result<std::string> v = take_value();
      if (!v.ok()) return v.error();
      (name == "--config" ? args.config_path : args.sets.emplace_back()) = *v;
    } else if (std::find(command.value_options.begin(), command.value_options.end(), name) !=
               command.value_options.end()) {
      Result<std::string> v = take_value();
      if (!v.ok()) return v.error();
      args.options.emplace_back(std::string(name), *v);
    } else if (arg.starts_with("-") && arg != "-") {
      return Error{prefix + "unknown option " + std::string(arg) + " (see " + full_name +
                   " --help)"};
    } else {
      args.positional.emplace_back(arg);
    }
  }
  return args;
}

Result<config::Config> LoadConfig(const Args& args, int* status) {
  *status = kExitRuntime;
  Result<config::Config> cfg = config::Config::FromFileOrDefaults(args.config_path);
  if (!cfg.ok()) return cfg.error();
  for (const std::string& set : args.sets) {
    Status s = cfg->SetAssignment(set);
    if (!s.ok()) {
      *status = kExitUsage;
      return Error{"--set " + s.error().message};
    }
  }
  if (!args.sets.empty()) {  // the file alone was checked as it was read
    if (Status s = cfg->Check(); !s.ok()) {
      *status = kExitUsage;
      return Error{"--set: " + s.error().message};
    }
  }
  *status = kExitOk;
  return cfg;
}

std::optional<config::Config> SetUp(const Args& args, int* status) {
  Result<config::Config> cfg = LoadConfig(args, status);
  if (!cfg.ok()) {
    PrintError(cfg.error().message);
    return std::nullopt;
  }
  if (args.print_config) {
    std::fputs(cfg->ToToml().c_str(), stdout);
    *status = kExitOk;
    return std::nullopt;
  }
  return std::move(cfg).value();
}

void PrintError(std::string_view message) {
  std::fprintf(stderr, "earshot: %.*s\n", static_cast<int>(message.size()), message.data());
}

void PrintWarning(std::string_view message) {
  std::fprintf(stderr, "earshot: warning: %.*s\n", static_cast<int>(message.size()), message.data());
}

std::string DefaultSamplePath() {
  return config::BundledFilePath(EARSHOT_SAMPLE_NAME, "tools/samples/" EARSHOT_SAMPLE_NAME);
}

}  // namespace earshot::cli
