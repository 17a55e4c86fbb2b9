#include "daemon/args.h"

#include <cstdio>
#include <string>
#include <string_view>

#include "config/command_line.h"
#include "daemon/reference.h"

namespace earshot::daemon {

const char* const kUsage =
    "usage: earshotd [--config F] [--set KEY=VALUE]... [--input alsa:DEVICE|wav:PATH]\n"
    "                [--reference pipe:PATH[:RATE[:CHANNELS]]|alsa:DEVICE]\n"
    "                [--bus system|session|none]\n"
    "                [--events FILE|-] [--sysfs-root DIR] [--print-config]\n"
    "\n"
    "The earshot service: listens to a microphone (ALSA) or plays a recording through the cascade\n"
    "(VAD -> wake word -> speech-to-text) and publishes its events as D-Bus signals of\n"
    "io.earshot.Pipeline1 on /io/earshot/Pipeline1. Runs under systemd (Type=notify, watchdog).\n"
    "\n"
    "  --config F          TOML configuration (default: built-in defaults; see --print-config)\n"
    "  --set KEY=VALUE     override one option after --config (repeatable), e.g.\n"
    "                      --set kws.sensitivities=0.6\n"
    "  --input SPEC        alsa:DEVICE (capture PCM, e.g. alsa:default, alsa:hw:1) or wav:PATH\n"
    "                      (a recording, played in real time; the daemon stops at its end);\n"
    "                      wav:- reads a WAV or AU stream on standard input as it comes\n"
    "                      (arecord -f S16_LE -r 16000 | earshotd --input wav:-);\n"
    "                      default: daemon.input\n"
    "  --reference SPEC    what the device plays, to hear people over it: pipe:PATH is a FIFO\n"
    "                      (created if missing) into which the player writes raw 16-bit\n"
    "                      little-endian PCM, by default 16000 Hz mono (pipe:PATH:48000:2 for\n"
    "                      48 kHz stereo); alsa:DEVICE is a capture PCM that carries the\n"
    "                      playback (an ALSA loopback, or a PipeWire/PulseAudio monitor);\n"
    "                      its echo is cancelled from the microphone while it sounds, and\n"
    "                      when it stops the microphone passes unchanged; default:\n"
    "                      daemon.reference\n"
    "  --bus B             system (default), session, or none\n"
    "  --events FILE|-     also write the events as JSON lines to FILE or stdout\n"
    "  --sysfs-root DIR    where the governor reads power_supply and thermal\n"
    "                      (default: governor.sysfs_root)\n"
    "  --print-config      print the effective configuration (defaults, --config, --set,\n"
    "                      --input, --sysfs-root) as TOML and exit\n"
    "  --version           print the version and exit\n"
    "\n"
    "Signals: SIGTERM/SIGINT finish the current event and exit 0; SIGHUP reloads the models.\n"
    "Exit status: 0 ok, 1 runtime error (named on stderr), 2 usage error.\n";

Result<Args> ParseArgs(int argc, char** argv) {
  const config::CommandLineSpec spec{
      "earshotd",
      {"--config", "--set", "--input", "--reference", "--bus", "--events", "--sysfs-root"},
      {"--help", "--print-config", "--version"}};
  Result<config::CommandLine> line = config::ParseCommandLine(spec, argc, argv, 1);
  if (!line.ok()) return line.error();
  if (!line->positional.empty()) {
    return Error{"unexpected argument " + line->positional.front() + " (see earshotd --help)"};
  }
  Args args;
  args.help = line->Has("--help");
  args.print_config = line->Has("--print-config");
  args.version = line->Has("--version");
  args.options.config_path = line->Option("--config");
  args.options.input = line->Option("--input");
  args.options.reference = line->Option("--reference");
  if (line->Has("--reference")) {
    if (Result<ReferenceSpec> ref = ParseReferenceSpec(args.options.reference); !ref.ok()) {
      return ref.error();
    }
  }
  args.options.bus = line->Option("--bus", args.options.bus);
  args.options.events = line->Option("--events");
  args.options.sysfs_root = line->Option("--sysfs-root");
  args.options.sets = line->All("--set");
  // A --set that names no option or gives a value out of its range is a usage error.
  config::Config defaults = config::Config::Defaults();
  for (const std::string& set : args.options.sets) {
    if (Status s = defaults.SetAssignment(set); !s.ok()) return Error{"--set " + s.error().message};
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
