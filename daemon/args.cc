#include "daemon/args.h"

#include <cstdio>
#include <string>
#include <string_view>

namespace earshot::daemon {

const char* const kUsage =
    "usage: earshotd [--config F] [--input alsa:DEVICE|wav:PATH] [--bus system|session|none]\n"
    "                [--events FILE|-] [--sysfs-root DIR] [--print-config]\n"
    "\n"
    "The earshot service: listens to a microphone (ALSA) or plays a recording through the cascade\n"
    "(VAD -> wake word -> speech-to-text) and publishes its events as D-Bus signals of\n"
    "io.earshot.Pipeline1 on /io/earshot/Pipeline1. Runs under systemd (Type=notify, watchdog).\n"
    "\n"
    "  --config F          TOML configuration (default: built-in defaults; see --print-config)\n"
    "  --input SPEC        alsa:DEVICE (capture PCM, e.g. alsa:default, alsa:hw:1) or wav:PATH\n"
    "                      (a recording, played in real time; the daemon stops at its end);\n"
    "                      wav:- reads a WAV or AU stream on standard input as it comes\n"
    "                      (arecord -f S16_LE -r 16000 | earshotd --input wav:-);\n"
    "                      default: daemon.input\n"
    "  --bus B             system (default), session, or none\n"
    "  --events FILE|-     also write the events as JSON lines to FILE or stdout\n"
    "  --sysfs-root DIR    where the governor reads power_supply and thermal\n"
    "                      (default: governor.sysfs_root)\n"
    "  --print-config      print the effective configuration (defaults, --config, --input,\n"
    "                      --sysfs-root) as TOML and exit\n"
    "  --version           print the version and exit\n"
    "\n"
    "Signals: SIGTERM/SIGINT finish the current event and exit 0; SIGHUP reloads the models.\n"
    "Exit status: 0 ok, 1 runtime error (named on stderr), 2 usage error.\n";

Result<Args> ParseArgs(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    std::string name(arg), value;
    const size_t eq = arg.find('=');
    const bool inline_value = arg.starts_with("--") && eq != std::string_view::npos;
    if (inline_value) {
      name = std::string(arg.substr(0, eq));
      value = std::string(arg.substr(eq + 1));
    }
    if (name == "--help" || name == "-h") {
      args.help = true;
      continue;
    }
    if (name == "--print-config") {
      args.print_config = true;
      continue;
    }
    if (name == "--version") {
      args.version = true;
      continue;
    }
    std::string* target = name == "--config"       ? &args.options.config_path
                          : name == "--input"      ? &args.options.input
                          : name == "--bus"        ? &args.options.bus
                          : name == "--events"     ? &args.options.events
                          : name == "--sysfs-root" ? &args.options.sysfs_root
                                                   : nullptr;
    if (target == nullptr) return Error{"unknown argument " + std::string(arg) + " (see --help)"};
    if (!inline_value) {
      if (i + 1 >= argc) return Error{name + " needs a value"};
      value = argv[++i];
    }
    *target = value;
  }
  const std::string& bus = args.options.bus;
  if (bus != "system" && bus != "session" && bus != "none") {
    return Error{"--bus " + bus + ": expected system, session or none"};
  }
  const std::string& input = args.options.input;
  if (!input.empty() && !(input.starts_with("alsa:") && input.size() > 5) &&
      !(input.starts_with("wav:") && input.size() > 4)) {
    return Error{"--input " + input + ": expected alsa:DEVICE or wav:PATH"};
  }
  return args;
}

const char* const kVersion = "earshotd " EARSHOT_VERSION "\n";

int PrintConfig(const DaemonOptions& options) {
  Result<config::Config> cfg = EffectiveConfig(options);
  if (!cfg.ok()) {
    std::fprintf(stderr, "earshotd: %s\n", cfg.error().message.c_str());
    return 1;
  }
  std::fputs(cfg->ToToml().c_str(), stdout);
  return 0;
}

}  // namespace earshot::daemon
