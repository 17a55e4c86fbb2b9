// earshotd's command line: the options of DESIGN.md, checked; usage errors name the argument.
#pragma once

#include "base/result.h"
#include "daemon/manager.h"

namespace earshot::daemon {

struct Args {
  DaemonOptions options;
  bool print_config = false;
  bool help = false;
  bool version = false;
};

Result<Args> ParseArgs(int argc, char** argv);

extern const char* const kUsage;
extern const char* const kVersion;  // "earshotd X.Y.Z\n"

// --print-config: the effective configuration (EffectiveConfig) as TOML on stdout; the exit
// status.
int PrintConfig(const DaemonOptions& options);

}  // namespace earshot::daemon
