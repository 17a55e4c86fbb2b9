// The sub-commands of `earshot`, one file each (cmd_*.cc).
#pragma once

#include "tools/cli.h"

namespace earshot::cli {

extern const Command kRunCommand;
extern const Command kFeaturesCommand;
extern const Command kVadCommand;
extern const Command kKwsCommand;
extern const Command kTranscribeCommand;
extern const Command kBenchCommand;
extern const Command kPronounceCommand;

}  // namespace earshot::cli
