// `earshot run`: the cascade over recordings, events as JSON lines on stdout.
#include <cstdio>

#include <vector>

#include "audio/frame_source.h"
#include "statemachine/json_sink.h"
#include "statemachine/pipeline.h"
#include "tools/commands.h"
#include "tools/stages.h"

namespace earshot::cli {
namespace {

constexpr std::string_view kUsage =
    "usage: earshot run [--config F] [--set SECTION.KEY=VALUE]... [--print-config]\n"
    "                   [--stages vad|vad,kws|all] [FILE...]\n"
    "\n"
    "Runs the cascade over each FILE (WAV, FLAC, any rate and channel count; converted to 16 kHz\n"
    "mono) and prints its events as JSON lines on stdout, stream time in seconds: the VAD's\n"
    "speech_start and speech_end, the keyword spotter's wake while there is speech, the STT's\n"
    "transcript after a wake word, and each state change (idle, voice, command). Each file is a\n"
    "stream of its own, introduced by an `audio` event saying what was read. Without FILE, runs the\n"
    "bundled sample.\n"
    "\n"
    "  --config F          TOML configuration (see --print-config for every key)\n"
    "  --set S.K=V         override one option, e.g. --set kws.threshold=0.9\n"
    "  --stages S          vad: the VAD only; vad,kws: no STT; all (default)\n"
    "  --print-config      print the effective configuration as TOML and exit\n"
    "\n"
    "Exit status: 0 ok, 1 a file or the config could not be used (named on stderr), 2 usage.\n";

// Keeps a file's events until it has been read to the end, so that a file that fails halfway
// prints nothing.
class CollectingSink final : public EventSink {
 public:
  void Emit(const Event& event) override { events.push_back(event); }
  std::vector<Event> events;
};

Result<std::vector<Event>> RunFile(const std::string& path, const config::Config& config,
                                   const statemachine::PipelineModels& models) {
  Result<std::unique_ptr<audio::FileSource>> source =
      audio::FileSource::Open(path, SourceOptions(config));
  if (!source.ok()) return source.error();
  CollectingSink sink;
  auto pipeline = statemachine::Pipeline::Create(config, models, &sink);
  if (!pipeline.ok()) return pipeline.error();
  audio::Frame frame;
  for (;;) {
    Result<bool> more = (*source)->Next(frame);
    if (!more.ok()) return more.error();
    if (!*more) break;
    (*pipeline)->Push(frame);
  }
  (*pipeline)->Finish();
  const audio::SourceInfo info = (*source)->info();
  sink.events.insert(sink.events.begin(),
                     AudioEvent{0.0, path, static_cast<double>(info.frames) / info.rate, info.rate,
                                info.channels});
  return std::move(sink.events);
}

int Run(const Args& args) {
  int status = kExitOk;
  std::optional<config::Config> cfg = SetUp(args, &status);
  if (!cfg) return status;
  Result<statemachine::StageSet> stages = statemachine::StageSet::Parse(args.Option("--stages", "all"));
  if (!stages.ok()) {
    PrintError(stages.error().message);
    return kExitUsage;
  }
  auto front_end = features::FrontEndConfig::FromConfig(*cfg);
  if (!front_end.ok()) {
    PrintError(front_end.error().message);
    return kExitRuntime;
  }
  // Loaded once: every file is a new stream over the same models.
  auto models = statemachine::PipelineModels::Load(*cfg, *front_end, *stages);
  if (!models.ok()) {
    PrintError(models.error().message);
    return kExitRuntime;
  }
  std::vector<std::string> files = args.positional;
  if (files.empty()) files.push_back(DefaultSamplePath());

  JsonLinesSink sink(stdout);
  sink.Emit(StateEvent{0.0, "idle"});
  for (const std::string& path : files) {
    Result<std::vector<Event>> events = RunFile(path, *cfg, *models);
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

const Command kRunCommand{"run", "run the cascade over recordings, events as JSON lines", kUsage,
                          {"--stages"}, {}, Run};

}  // namespace earshot::cli
