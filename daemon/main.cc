// earshotd: the earshot service (DESIGN.md). Everything is the Manager's; main only exits.
#include <malloc.h>

#include <cstdio>
#include <cstdlib>

#include "daemon/args.h"
#include "daemon/manager.h"

int main(int argc, char** argv) {
  using earshot::daemon::Manager;
  auto args = earshot::daemon::ParseArgs(argc, argv);
  if (!args.ok()) {
    std::fprintf(stderr, "earshotd: %s\n", args.error().message.c_str());
    return 2;
  }
  if (args->help) return std::fputs(earshot::daemon::kUsage, stdout) < 0 ? 1 : 0;
  if (args->version) return std::fputs(earshot::daemon::kVersion, stdout) < 0 ? 1 : 0;
  if (args->print_config) return earshot::daemon::PrintConfig(args->options);
  // Blocks of 256 KB and more (a decoder's tables) are mapped for themselves and unmapped when
  // freed: by default malloc raises this threshold to the largest block freed, and the decoders
  // of the command sets' compiles then fragment the heap (docs/research/robustness.md).
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
  auto manager = Manager::Create(args->options);
  if (!manager.ok()) {
    std::fprintf(stderr, "earshotd: %s\n", manager.error().message.c_str());
    return 1;
  }
  const int status = (*manager)->Run();
  manager->reset();
  if (earshot::daemon::LoadAbandoned()) {
    // A model load still runs on its thread: exit without the static destructors it may use.
    std::fflush(nullptr);
    std::_Exit(status);
  }
  return status;
}
