// earshot: the offline harness. Runs the device's pipeline over recordings (see DESIGN.md).
#include <cstdio>
#include <string_view>

#include "tools/commands.h"

namespace {

using earshot::cli::Command;

const Command* const kCommands[] = {
    &earshot::tools::kRunCommand,      &earshot::tools::kVadCommand,
    &earshot::tools::kKwsCommand,      &earshot::tools::kTranscribeCommand,
    &earshot::tools::kFeaturesCommand, &earshot::tools::kPronounceCommand,
    &earshot::tools::kBenchCommand,    &earshot::tools::kCancelEchoCommand};

void PrintUsage(std::FILE* out) {
  std::fprintf(out,
               "usage: earshot COMMAND [OPTIONS] [FILE...]\n\n"
               "On-device speech pipeline: VAD -> wake word -> speech-to-text, offline harness.\n\n"
               "commands:\n");
  for (const Command* c : kCommands) {
    std::fprintf(out, "  %-12.*s %.*s\n", static_cast<int>(c->name.size()), c->name.data(),
                 static_cast<int>(c->synopsis.size()), c->synopsis.data());
  }
  std::fprintf(out,
               "\n`earshot COMMAND --help` describes one; `earshot --version` prints the "
               "version.\nExit status: 0 ok, 1 runtime error, 2 usage error.\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    PrintUsage(stderr);
    return earshot::cli::kExitUsage;
  }
  std::string_view name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    PrintUsage(stdout);
    return earshot::cli::kExitOk;
  }
  if (name == "--version") {
    const bool printed = std::printf("earshot %s\n", EARSHOT_VERSION) > 0;
    return printed ? earshot::cli::kExitOk : earshot::cli::kExitRuntime;
  }
  for (const Command* command : kCommands) {
    if (command->name != name) continue;
    auto args = earshot::cli::Parse(*command, argc, argv, 2);
    if (!args.ok()) {
      earshot::tools::PrintError(args.error().message);
      return earshot::cli::kExitUsage;
    }
    if (args->help) {
      std::fwrite(command->usage.data(), 1, command->usage.size(), stdout);
      return earshot::cli::kExitOk;
    }
    return command->run(*args);
  }
  earshot::tools::PrintError("unknown command '" + std::string(name) + "' (see earshot --help)");
  return earshot::cli::kExitUsage;
}
