#include "cli/cli.h"

namespace earshot::cli {

Result<Args> Parse(const Command& command, int argc, char** argv, int first) {
  // A program of its own (earshot-wyoming) is named alone; a sub-command after "earshot".
  const bool program = command.name.starts_with("earshot-");
  const std::string full_name = (program ? "" : "earshot ") + std::string(command.name);
  config::CommandLineSpec spec{full_name, command.value_options, command.flag_options};
  spec.value_options.insert(spec.value_options.end(), {"--config", "--set"});
  spec.flag_options.insert(spec.flag_options.end(), {"--help", "--print-config"});
  Result<config::CommandLine> line = config::ParseCommandLine(spec, argc, argv, first);
  if (!line.ok()) return line.error();
  Args args;
  static_cast<config::CommandLine&>(args) = std::move(line).value();
  args.config_path = args.Option("--config");
  args.sets = args.All("--set");
  args.print_config = args.Has("--print-config");
  args.help = args.Has("--help");
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

}  // namespace earshot::cli
