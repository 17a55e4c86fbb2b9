// The sub-commands of `earshot`, one file each (cmd_*.cc).
#pragma once

#include "tools/cli.h"

namespace earshot::cli {

extern const Command kRunCommand;

}  // namespace earshot::cli
