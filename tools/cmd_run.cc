// `earshot run`: the cascade over recordings, events as JSON lines on stdout.
#include <cstdio>
#include <filesystem>

#include <vector>

#include "audio/frame_source.h"
#include "governor/governor_driver.h"
#include "governor/sensor_poller.h"
#include "governor/sensor_timeline.h"
#include "options/stage_options.h"
#include "statemachine/json_sink.h"
#include "statemachine/pipeline.h"
#include "tools/commands.h"
#include "tools/stages.h"

namespace earshot::tools {
namespace {

constexpr std::string_view kUsage =
    "usage: earshot run [--config F] [--set SECTION.KEY=VALUE]... [--print-config]\n"
    "                   [--stages vad|vad,kws|all] [--sensors FILE | --sysfs-root DIR]\n"
    "                   [--reference PLAYED FILE | FILE...]\n"
    "\n"
    "Runs the cascade over each FILE (WAV, FLAC, any rate and channel count; converted to 16 kHz\n"
    "mono; audio below 16 kHz is warned about; -: a WAV or AU stream on standard input, as\n"
    "arecord or sox -t wav - write it) and prints its events as JSON lines on stdout, stream time\n"
    "in seconds: the VAD's speech_start and speech_end, the keyword spotter's wake while there is\n"
    "speech, the STT's transcript after a wake word, and each state change (idle, voice, command).\n"
    "Each file is a stream of its own, introduced by an `audio` event saying what was read. Without\n"
    "FILE, runs the bundled sample.\n"
    "\n"
    "  --config F          TOML configuration (see --print-config for every key)\n"
    "  --set S.K=V         override one option, e.g. --set kws.sensitivities=0.4\n"
    "  --stages S          vad: the VAD only; vad,kws: no STT; all (default)\n"
    "  --sensors FILE      run the governor on a timeline of sensor readings, one line per change:\n"
    "                      `t battery_percent charging temp_c` (seconds of stream time; '-': unknown)\n"
    "  --sysfs-root DIR    run the governor on the sysfs tree under DIR (e.g. /sys)\n"
    "                      Without either, a governor.profile other than auto chooses the models\n"
    "                      (with its profile event); else they are kws.models' and stt.profile's\n"
    "                      and no profile events appear.\n"
    "  --reference PLAYED  what the device played while FILE was recorded (any rate and channel\n"
    "                      count), sample-aligned with FILE as a player sends it: its echo is\n"
    "                      cancelled from FILE before every stage, while it carries sound; the\n"
    "                      loudspeaker's delay (up to 300 ms) is estimated. Past its end FILE\n"
    "                      passes unchanged. One FILE only.\n"
    "  --print-config      print the effective configuration as TOML and exit\n"
    "\n"
    "Exit status: 0 ok, 1 a file or the config could not be used (named on stderr), 2 usage.\n";

// Keeps a file's events until it has been read to the end, so that a file that fails halfway
// prints nothing.
class CollectingSink final : public statemachine::EventSink {
 public:
  void Emit(const statemachine::Event& event) override { events.push_back(event); }
  std::vector<statemachine::Event> events;
};

// The governor of a run: its config, where readings come from, and the models it chooses among.
struct Governed {
  governor::GovernorConfig config;
  governor::GovernorDriver::ReadFn read;
  std::shared_ptr<statemachine::ModelLibrary> library;
  // Of the profile it starts with: governor.profile's, else performance.
  statemachine::ProfileModels StartSizes() const {
    return config.Models(config.manual.value_or(governor::Profile::kPerformance));
  }
};

// --sensors FILE or --sysfs-root DIR: a governor reading that; neither: a governor without
// sensors when governor.profile fixes a profile (its models, and its profile event), else none.
Result<std::optional<Governed>> MakeGoverned(const cli::Args& args, const config::Config& config,
                                             statemachine::StageSet stages) {
  const std::string timeline_path = args.Option("--sensors", "");
  const std::string sysfs_root = args.Option("--sysfs-root", "");
  Result<governor::GovernorConfig> gov_config = governor::GovernorConfig::FromConfig(config);
  if (!gov_config.ok()) return gov_config.error();
  const bool sensors = args.Has("--sensors") || args.Has("--sysfs-root");
  if (!sensors && !gov_config->manual) return std::optional<Governed>();
  if (args.Has("--sensors") && timeline_path.empty()) return Error{"--sensors: expected a FILE"};
  // As earshotd: a root that is not a directory is a mistake, not a device without sensors.
  if (args.Has("--sysfs-root") && !std::filesystem::is_directory(sysfs_root)) {
    return Error{"--sysfs-root '" + sysfs_root + "': not a directory"};
  }
  Governed governed{*gov_config, nullptr,
                    std::make_shared<statemachine::ModelLibrary>(config, stages)};
  if (!sensors) {
    governed.read = [](int64_t) {
      return governor::SensorSample{};
    };  // unknown: the manual profile rules
  } else if (!timeline_path.empty()) {
    Result<governor::SensorTimeline> timeline = governor::SensorTimeline::Load(timeline_path);
    if (!timeline.ok()) return timeline.error();
    governed.read = [timeline = *timeline](int64_t now_ms) {
      return governor::SensorSample{timeline.At(static_cast<double>(now_ms) / 1000.0), {}};
    };
  } else {
    // A poll at its stream time, waited for; an attribute that does not answer costs a second
    // once (sensor_poller.h).
    governed.read = [poller = std::make_shared<governor::SensorPoller>(sysfs_root)](int64_t) {
      return poller->Read();
    };
  }
  return std::optional<Governed>(std::move(governed));
}

Result<std::vector<statemachine::Event>> RunFile(const std::string& path,
                                                 const config::Config& config,
                                                 const statemachine::PipelineModels& models,
                                                 Governed* governed, Playback* playback) {
  Result<std::unique_ptr<audio::FileSource>> source =
      audio::FileSource::Open(path, options::BindFileSource(config));
  if (!source.ok()) return source.error();
  CollectingSink sink;
  // Warned once per file, on stderr at once and as an event in the file's place.
  if (std::string band = audio::BandLimitWarning(path, (*source)->info().rate); !band.empty()) {
    PrintWarning(band);
    sink.Emit(statemachine::ErrorEvent{0.0, "audio", band});
  }
  auto pipeline = statemachine::Pipeline::Create(config, models, &sink);
  if (!pipeline.ok()) return pipeline.error();
  governor::PipelineHost host(pipeline->get(), &sink);
  governor::SynchronousLoader loader;
  std::optional<governor::GovernorDriver> driver;
  if (governed != nullptr) {
    driver.emplace(governed->config, governed->library, governed->StartSizes(), &host, &loader,
                   governed->read);
  }
  audio::Frame frame;
  for (int64_t ms = 0;; ms += audio::kFrameMs) {
    if (driver) driver->Tick(ms);
    Result<bool> more = (*source)->Next(frame);
    if (!more.ok()) return more.error();
    if (!*more) break;
    if (playback != nullptr) {
      if (Status s = playback->Cancel(frame); !s.ok()) return s.error();
      (*pipeline)->SetPlayback(playback->active(),
                               playback->canceller->stats().delay_ms / audio::kFrameMs);
      if (playback->active()) (*pipeline)->PushReference(playback->played);
    }
    (*pipeline)->Push(frame);
  }
  (*pipeline)->Finish();
  const audio::SourceInfo info = (*source)->info();
  sink.events.insert(
      sink.events.begin(),
      statemachine::AudioEvent{0.0, path, static_cast<double>(info.frames) / info.rate, info.rate,
                               info.channels});
  return std::move(sink.events);
}

int Run(const cli::Args& args) {
  int status = cli::kExitOk;
  std::optional<config::Config> cfg = SetUp(args, &status);
  if (!cfg) return status;
  Result<statemachine::StageSet> stages = statemachine::StageSet::Parse(args.Option("--stages", "all"));
  if (!stages.ok()) {
    PrintError(stages.error().message);
    return cli::kExitUsage;
  }
  if (args.Has("--sensors") && args.Has("--sysfs-root")) {
    PrintError("run: --sensors and --sysfs-root are two sources for one governor: give one");
    return cli::kExitUsage;
  }
  Result<std::optional<Governed>> governed = MakeGoverned(args, *cfg, *stages);
  if (!governed.ok()) {
    PrintError(governed.error().message);
    return cli::kExitRuntime;
  }
  Governed* governor = governed->has_value() ? &**governed : nullptr;
  // Loaded once: every file is a new stream over the same models (with a governor, those of its
  // starting profile; its first poll announces the profile and swaps if need be).
  auto models = governor != nullptr ? governor->library->For(governor->StartSizes())
                                    : statemachine::PipelineModels::Load(*cfg, *stages);
  if (!models.ok()) {
    PrintError(models.error().message);
    return cli::kExitRuntime;
  }
  std::vector<std::string> files = args.positional;
  if (files.empty()) files.push_back(DefaultSamplePath());
  std::optional<Playback> playback;
  if (args.Has("--reference")) {
    if (files.size() != 1 || args.Option("--reference", "").empty()) {
      PrintError("run: --reference PLAYED goes with one FILE, the recording it was played into");
      return cli::kExitUsage;
    }
    Result<Playback> opened = Playback::Open(args.Option("--reference", ""), *cfg);
    if (!opened.ok()) {
      PrintError(opened.error().message);
      return cli::kExitRuntime;
    }
    playback.emplace(std::move(opened).value());
  }

  statemachine::JsonLinesSink sink(stdout);
  sink.Emit(statemachine::StateEvent{0.0, "idle"});
  for (const std::string& path : files) {
    Result<std::vector<statemachine::Event>> events =
        RunFile(path, *cfg, *models, governor, playback ? &*playback : nullptr);
    if (!events.ok()) {
      PrintError(events.error().message);
      status = cli::kExitRuntime;
      continue;  // the other files still run; the exit status reports the failure
    }
    for (const statemachine::Event& e : *events) sink.Emit(e);
  }
  return status;
}

}  // namespace

const cli::Command kRunCommand{"run",  "run the cascade over recordings, events as JSON lines",
                               kUsage, {"--stages", "--sensors", "--sysfs-root", "--reference"},
                               {},     Run};

}  // namespace earshot::tools
