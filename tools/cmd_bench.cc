// `earshot bench`: what the cascade costs on a recording, per stage, from the pipeline's counters.
#include <sys/resource.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <vector>

#include "audio/format.h"
#include "audio/frame_source.h"
#include "governor/governor.h"
#include "options/stage_options.h"
#include "statemachine/model_library.h"
#include "statemachine/pipeline.h"
#include "tools/commands.h"
#include "tools/stages.h"

namespace earshot::tools {
namespace {

constexpr std::string_view kUsage =
    "usage: earshot bench [--config F] [--set S.K=V]... [--stages vad|vad,kws|all] [--repeat N]\n"
    "                     [--profile performance|balanced|saver|critical] [FILE]\n"
    "\n"
    "Runs the cascade over FILE (default: the bundled sample), decoded into memory first, N times\n"
    "in a row as one stream (default 1), and prints what each stage cost:\n"
    "  stage<TAB>frames<TAB>us_per_audio_s<TAB>core_percent\n"
    "for front_end, vad, kws, stt and total (frames: 10 ms frames the stage processed; a gated stage\n"
    "processes fewer than the stream has; us_per_audio_s: microseconds of one core per second of\n"
    "audio), then the real-time factor, the stream's wake words and requests, the longest wait\n"
    "for a final transcript after an endpoint, and peak memory.\n"
    "Model loading is not counted. --profile runs the models the governor gives that profile\n"
    "(default: kws.models' and stt.profile's).\n";

Result<std::vector<audio::Frame>> ReadAll(const std::string& path, const config::Config& config) {
  auto source = audio::FileSource::Open(path, options::BindFileSource(config));
  if (!source.ok()) return source.error();
  std::vector<audio::Frame> frames;
  audio::Frame frame;
  for (;;) {
    Result<bool> more = (*source)->Next(frame);
    if (!more.ok()) return more.error();
    if (!*more) return frames;
    frames.push_back(frame);
  }
}

class CountingSink final : public statemachine::EventSink {
 public:
  void Emit(const statemachine::Event&) override { ++events; }
  int64_t events = 0;
};

void PrintStage(const char* name, const statemachine::StageCounter& c, double audio_s) {
  const double us_per_s = static_cast<double>(c.nanoseconds) / 1000.0 / audio_s;
  std::printf("%s\t%lld\t%.1f\t%.4f\n", name, static_cast<long long>(c.frames), us_per_s,
              us_per_s / 1e4);
}

void PrintReport(const statemachine::PipelineStats& s, double wall_s) {
  const double audio_s = audio::FramesToSeconds(s.frames);
  std::printf("stage\tframes\tus_per_audio_s\tcore_percent\n");
  PrintStage("front_end", s.front_end, audio_s);
  PrintStage("vad", s.vad, audio_s);
  PrintStage("kws", s.kws, audio_s);
  PrintStage("stt", s.stt, audio_s);
  statemachine::StageCounter total{s.frames, s.front_end.nanoseconds + s.vad.nanoseconds +
                                                 s.kws.nanoseconds + s.stt.nanoseconds};
  PrintStage("total", total, audio_s);
  std::printf("audio_s\t%.2f\n", audio_s);
  std::printf("real_time_factor\t%.6f\n", wall_s / audio_s);
  std::printf("wakes\t%lld\nrequests\t%lld\n", static_cast<long long>(s.wakes),
              static_cast<long long>(s.requests));
  std::printf("final_transcript_wait_ms_max\t%.1f\n",
              static_cast<double>(s.stt_end_nanoseconds_max) / 1e6);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("peak_rss_kib\t%ld\n", usage.ru_maxrss);
}

// The models of --profile (the governor's choice for it), or those the config names.
Result<statemachine::PipelineModels> LoadModels(const cli::Args& args, const config::Config& config,
                                                statemachine::StageSet stages) {
  const std::string name = args.Option("--profile", "");
  if (name.empty()) return statemachine::PipelineModels::Load(config, stages);
  auto profile = governor::ParseProfileSetting(name);  // checked by Bench
  auto gov_config = governor::GovernorConfig::FromConfig(config);
  if (!gov_config.ok()) return gov_config.error();
  statemachine::ModelLibrary library(config, stages);
  return library.For(gov_config->Models(**profile));
}

// --repeat's value: an integer in [1, 10000], else 0 (text after the number, such as 3x, or a
// number beyond int's range too).
int ParseRepeat(const std::string& text) {
  int repeat = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), repeat);
  const bool whole = ec == std::errc() && end == text.data() + text.size();
  return whole && repeat >= 1 && repeat <= 10000 ? repeat : 0;
}

int Bench(const cli::Args& args) {
  int status = cli::kExitOk;
  std::optional<config::Config> cfg = SetUp(args, &status);
  if (!cfg) return status;
  auto stages = statemachine::StageSet::Parse(args.Option("--stages", "all"));
  auto profile = governor::ParseProfileSetting(args.Option("--profile", "performance"));
  const int repeat = ParseRepeat(args.Option("--repeat", "1"));
  std::string usage_error;
  if (!stages.ok()) {
    usage_error = stages.error().message;
  } else if (!profile.ok() || !profile->has_value()) {
    usage_error = "bench: expected --profile performance, balanced, saver or critical";
  } else if (repeat == 0) {
    usage_error = "bench: expected --repeat N, N in [1, 10000]";
  } else if (args.positional.size() > 1) {
    usage_error = "bench: expected at most one FILE";
  }
  if (!usage_error.empty()) {
    PrintError(usage_error);
    return cli::kExitUsage;
  }
  const std::string path = args.positional.empty() ? DefaultSamplePath() : args.positional[0];
  Result<std::vector<audio::Frame>> frames = ReadAll(path, *cfg);
  CountingSink sink;
  auto models = frames.ok() ? LoadModels(args, *cfg, *stages)
                            : Result<statemachine::PipelineModels>(frames.error());
  auto pipeline = models.ok() ? statemachine::Pipeline::Create(*cfg, *models, &sink)
                              : Result<std::unique_ptr<statemachine::Pipeline>>(models.error());
  if (!pipeline.ok()) {
    PrintError(pipeline.error().message);
    return cli::kExitRuntime;
  }
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < repeat; ++r) {
    for (const audio::Frame& frame : *frames) (*pipeline)->Push(frame);
  }
  (*pipeline)->Finish();
  const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - start;
  PrintReport((*pipeline)->stats(), wall.count());
  return cli::kExitOk;
}

}  // namespace

const cli::Command kBenchCommand{"bench", "what each stage of the cascade costs on a recording",
                                 kUsage,  {"--stages", "--repeat", "--profile"},
                                 {},      Bench};

}  // namespace earshot::tools
