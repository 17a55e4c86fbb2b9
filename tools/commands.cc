#include "tools/commands.h"

#include <cstdio>

#include "config/paths.h"

namespace earshot::tools {

std::optional<config::Config> SetUp(const cli::Args& args, int* status) {
  Result<config::Config> cfg = cli::LoadConfig(args, status);
  if (!cfg.ok()) {
    PrintError(cfg.error().message);
    return std::nullopt;
  }
  if (args.print_config) {
    std::fputs(cfg->ToToml().c_str(), stdout);
    *status = cli::kExitOk;
    return std::nullopt;
  }
  return std::move(cfg).value();
}

void PrintError(std::string_view message) {
  std::fprintf(stderr, "earshot: %.*s\n", static_cast<int>(message.size()), message.data());
}

void PrintWarning(std::string_view message) {
  std::fprintf(stderr, "earshot: warning: %.*s\n", static_cast<int>(message.size()),
               message.data());
}

std::string DefaultSamplePath() {
  return config::BundledFilePath(EARSHOT_SAMPLE_NAME, "tools/samples/" EARSHOT_SAMPLE_NAME);
}

}  // namespace earshot::tools
