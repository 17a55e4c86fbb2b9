// `earshot run`: the pipeline over recordings, events as JSON lines on stdout.
#include <cstdio>

#include <vector>

#include "audio/frame_source.h"
#include "statemachine/json_sink.h"
#include "tools/commands.h"
#include "tools/stages.h"

namespace earshot::cli {
namespace {

constexpr std::string_view kUsage =
    "usage: earshot run [--config F] [--set SECTION.KEY=VALUE]... [--print-config] [FILE...]\n"
    "\n"
    "Runs the pipeline over each FILE (WAV, FLAC, any rate and channel count; converted to 16 kHz\n"
    "mono) and prints its events as JSON lines on stdout, stream time in seconds. Each file is a\n"
    "stream of its own: an `audio` event says what was read, then the stages' events follow\n"
    "(speech_start, speech_end from the VAD). Without FILE, runs the bundled sample.\n"
    "\n"
    "  --config F          TOML configuration (see --print-config for every key)\n"
    "  --set S.K=V         override one option, e.g. --set audio.preroll_ms=1000\n"
    "  --print-config      print the effective configuration as TOML and exit\n"
    "\n"
    "Exit status: 0 ok, 1 a file or the config could not be used (named on stderr), 2 usage.\n";

// Streams one file through the pipeline and returns its events, the `audio` event first; on error
// nothing of the file is printed.
Result<std::vector<Event>> RunFile(const std::string& path, const config::Config& config) {
  Result<std::unique_ptr<audio::FileSource>> source =
      audio::FileSource::Open(path, SourceOptions(config));
  if (!source.ok()) return source.error();
  Result<VadStage> stage = VadStage::Create(config);
  if (!stage.ok()) return stage.error();
  std::vector<Event> events;
  bool speech = false;
  int64_t frames = 0;
  Status s = stage->Run(**source, [&](const vad::VadFrame& f) {
    const double t = static_cast<double>(f.index) / 100.0;
    if (f.speech && !speech) events.emplace_back(SpeechStartEvent{t});
    if (!f.speech && speech) events.emplace_back(SpeechEndEvent{t});
    speech = f.speech;
    frames = f.index + 1;
  });
  if (!s.ok()) return s.error();
  if (speech) events.emplace_back(SpeechEndEvent{static_cast<double>(frames) / 100.0});
  const audio::SourceInfo info = (*source)->info();
  events.insert(events.begin(), AudioEvent{0.0, path, static_cast<double>(info.frames) / info.rate,
                                           info.rate, info.channels});
  return events;
}

int Run(const Args& args) {
  int status = kExitOk;
  std::optional<config::Config> cfg = SetUp(args, &status);
  if (!cfg) return status;
  std::vector<std::string> files = args.positional;
  if (files.empty()) files.push_back(DefaultSamplePath());

  JsonLinesSink sink(stdout);
  sink.Emit(StateEvent{0.0, "idle"});
  for (const std::string& path : files) {
    Result<std::vector<Event>> events = RunFile(path, *cfg);
    if (!events.ok()) {
      PrintError(events.error().message);
      status = kExitRuntime;
      continue;  // the other files still run; the exit status reports the failure
    }
    for (const Event& e : *events) sink.Emit(e);
  }
  return status;
}

}  // namespace

const Command kRunCommand{"run", "run the pipeline over recordings, events as JSON lines", kUsage,
                          {}, {}, Run};

}  // namespace earshot::cli
