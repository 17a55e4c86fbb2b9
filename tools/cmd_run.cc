// `earshot run`: the pipeline over recordings, events as JSON lines on stdout.
#include <cstdio>

#include "audio/frame_source.h"
#include "statemachine/json_sink.h"
#include "tools/commands.h"

namespace earshot::cli {
namespace {

constexpr std::string_view kUsage =
    "usage: earshot run [--config F] [--set SECTION.KEY=VALUE]... [--print-config] [FILE...]\n"
    "\n"
    "Runs the pipeline over each FILE (WAV, FLAC, any rate and channel count; converted to 16 kHz\n"
    "mono) and prints its events as JSON lines on stdout, stream time in seconds. Each file is a\n"
    "stream of its own: an `audio` event says what was read. Without FILE, runs the bundled sample.\n"
    "\n"
    "  --config F          TOML configuration (see --print-config for every key)\n"
    "  --set S.K=V         override one option, e.g. --set audio.preroll_ms=1000\n"
    "  --print-config      print the effective configuration as TOML and exit\n"
    "\n"
    "Exit status: 0 ok, 1 a file or the config could not be used (named on stderr), 2 usage.\n";

// Streams one file through the pipeline; on error nothing of it has been printed.
Result<AudioEvent> RunFile(const std::string& path, const audio::FileSourceOptions& options) {
  Result<std::unique_ptr<audio::FileSource>> source = audio::FileSource::Open(path, options);
  if (!source.ok()) return source.error();
  audio::Frame frame;
  for (;;) {
    Result<bool> more = (*source)->Next(frame);
    if (!more.ok()) return more.error();
    if (!*more) break;
  }
  const audio::SourceInfo info = (*source)->info();
  return AudioEvent{0.0, path, static_cast<double>(info.frames) / info.rate, info.rate,
                    info.channels};
}

int Run(const Args& args) {
  int status = kExitOk;
  Result<config::Config> cfg = LoadConfig(args, &status);
  if (!cfg.ok()) {
    PrintError(cfg.error().message);
    return status;
  }
  if (args.print_config) {
    std::fputs(cfg->ToToml().c_str(), stdout);
    return kExitOk;
  }
  audio::FileSourceOptions options;
  options.read_chunk_ms = static_cast<int>(cfg->Int("audio.read_chunk_ms"));
  options.resampler_quality = cfg->String("audio.resampler_quality");

  std::vector<std::string> files = args.positional;
  if (files.empty()) files.push_back(DefaultSamplePath());

  JsonLinesSink sink(stdout);
  sink.Emit(StateEvent{0.0, "idle"});
  for (const std::string& path : files) {
    Result<AudioEvent> audio = RunFile(path, options);
    if (!audio.ok()) {
      PrintError(audio.error().message);
      status = kExitRuntime;
      continue;  // the other files still run; the exit status reports the failure
    }
    sink.Emit(*audio);
  }
  return status;
}

}  // namespace

const Command kRunCommand{"run", "run the pipeline over recordings, events as JSON lines", kUsage,
                          {"--stages", "--sysfs-root"}, Run};

}  // namespace earshot::cli
