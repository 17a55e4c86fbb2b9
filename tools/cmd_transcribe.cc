// `earshot transcribe`: speech-to-text over whole files, one line per file.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include "audio/frame_source.h"
#include "governor/governor.h"
#include "models/stt/stt.h"
#include "models/stt_factory/load_model.h"
#include "options/stage_options.h"
#include "tools/commands.h"
#include "tools/stages.h"

namespace earshot::tools {
namespace {

constexpr std::string_view kUsage =
    "usage: earshot transcribe [--profile P] [--stream] [--stats] [--words] [--config F]\n"
    "                          [--set stt.KEY=V]... FILE...\n"
    "\n"
    "Prints FILE<TAB>text for each FILE, decoding the whole file as one utterance with the [stt]\n"
    "settings (pocketsphinx, Debian's en-us model by default; stt.grammar or stt.words for a "
    "fixed\n"
    "vocabulary). With stt.commands (command sets): FILE<TAB>text<TAB>set/intent slot=value...\n"
    "(or 'rejected').\n"
    "  --profile P   large (default) or small (faster, less accurate), as --set stt.profile=P;\n"
    "                or a governor profile (performance, balanced, saver, critical): the size\n"
    "                its governor.*_stt gives\n"
    "  --stream      the files are consecutive utterances of one audio stream (as the cascade\n"
    "                decodes a microphone's requests): each starts from the cepstral mean the\n"
    "                previous one left; without it every file starts afresh\n"
    "  --words       print FILE<TAB>word<TAB>start<TAB>end per recognised word (seconds from the\n"
    "                file's start) instead of FILE<TAB>text: with a grammar of the file's own\n"
    "                transcript, a forced alignment\n"
    "  --stats       print to stderr, as JSON lines: per file its audio seconds and latency, then "
    "in\n"
    "                all: audio seconds, decoding seconds, model load seconds,\n"
    "                and the latency from the last frame fed to the final result (median, max), "
    "in\n"
    "                wall-clock time and in this thread's CPU time\n";

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// CPU time of this thread: the decoder's own work, whatever else the machine runs.
double ThreadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

std::pair<double, double> MedianAndMax(std::vector<double> values) {
  if (values.empty()) return {0, 0};
  std::sort(values.begin(), values.end());
  return {values[values.size() / 2], values.back()};
}

struct Stats {
  bool per_file = false;  // a line per file before the summary
  double audio_s = 0, proc_s = 0, load_s = 0;
  std::vector<double> final_latency_s, final_latency_cpu_s;

  void Print() const {
    const auto [median, worst] = MedianAndMax(final_latency_s);
    const auto [cpu_median, cpu_worst] = MedianAndMax(final_latency_cpu_s);
    std::fprintf(stderr,
                 "{\"audio_s\": %.3f, \"proc_s\": %.3f, \"rtf\": %.5f, \"load_s\": %.3f, "
                 "\"final_latency_ms\": {\"median\": %.1f, \"max\": %.1f}, "
                 "\"final_latency_cpu_ms\": {\"median\": %.1f, \"max\": %.1f}, \"files\": %zu}\n",
                 audio_s, proc_s, audio_s > 0 ? proc_s / audio_s : 0.0, load_s, 1000 * median,
                 1000 * worst, 1000 * cpu_median, 1000 * cpu_worst, final_latency_s.size());
  }
};

Result<stt::SttResult> TranscribeFile(const std::string& path, const config::Config& config,
                                   stt::SttSession& session, Stats& stats) {
  auto source = audio::FileSource::Open(path, options::BindFileSource(config));
  if (!source.ok()) return source.error();
  audio::Frame frame;
  std::vector<int16_t> samples;  // decoded first: the timing covers recognition only
  for (;;) {
    Result<bool> more = (*source)->Next(frame);
    if (!more.ok()) return more.error();
    if (!*more) break;
    samples.insert(samples.end(), frame.begin(), frame.end());
  }
  const Clock::time_point start = Clock::now();
  if (Status s = session.Begin(); !s.ok()) return Error{path + ": " + s.error().message};
  for (size_t i = 0; i < samples.size(); i += audio::kFrameSamples) {
    Status s = session.Feed(std::span<const int16_t>(samples).subspan(i, audio::kFrameSamples));
    if (!s.ok()) {
      (void)session.End();  // close the utterance: the stream goes on with the next file
      return Error{path + ": " + s.error().message};
    }
  }
  const Clock::time_point last_frame = Clock::now();
  const double last_frame_cpu = ThreadCpuSeconds();
  Result<stt::SttResult> result = session.End();
  const Clock::time_point done = Clock::now();
  const double done_cpu = ThreadCpuSeconds();
  if (!result.ok()) return Error{path + ": " + result.error().message};
  stats.audio_s += static_cast<double>(samples.size()) / audio::kSampleRate;
  stats.proc_s += Seconds(done - start);
  stats.final_latency_s.push_back(Seconds(done - last_frame));
  stats.final_latency_cpu_s.push_back(done_cpu - last_frame_cpu);
  if (stats.per_file) {
    std::fprintf(stderr,
                 "{\"file\": \"%s\", \"audio_s\": %.3f, \"final_latency_ms\": %.1f, "
                 "\"final_latency_cpu_ms\": %.1f}\n",
                 path.c_str(), static_cast<double>(samples.size()) / audio::kSampleRate,
                 1000 * stats.final_latency_s.back(), 1000 * stats.final_latency_cpu_s.back());
  }
  return std::move(result).value();
}

// With command sets: "set/intent slot=value ..." or "rejected".
std::string CommandColumn(const stt::SttResult& result) {
  if (!result.command) return "rejected";
  std::string out = result.command->set + "/" + result.command->intent;
  for (const auto& [slot, value] : result.command->slots) out += " " + slot + "=" + value;
  return out;
}

// --profile P: an STT size (large, small) is stt.profile; a governor profile is the size the
// governor gives it. Exit status 2 for a name that is neither, 1 for a profile without STT.
int ApplyProfile(const std::string& name, config::Config* cfg) {
  if (name.empty()) return cli::kExitOk;
  std::string size = name;
  if (name != "large" && name != "small") {
    Result<std::optional<governor::Profile>> profile = governor::ParseProfileSetting(name);
    if (!profile.ok() || !profile->has_value()) {
      PrintError("transcribe: --profile " + name +
                 ": expected large, small, performance, balanced, saver or critical");
      return cli::kExitUsage;
    }
    Result<governor::GovernorConfig> governor = governor::GovernorConfig::FromConfig(*cfg);
    if (!governor.ok()) {
      PrintError(governor.error().message);
      return cli::kExitRuntime;
    }
    const statemachine::SttSize stt = governor->Models(**profile).stt;
    if (stt == statemachine::SttSize::kOff) {
      PrintError("transcribe: --profile " + name + ": governor." + name + "_stt is off");
      return cli::kExitRuntime;
    }
    size = std::string(statemachine::SttSizeName(stt));
  }
  if (Status set = cfg->Set("stt.profile", size); !set.ok()) {
    PrintError(set.error().message);
    return cli::kExitRuntime;
  }
  return cli::kExitOk;
}

int Transcribe(const cli::Args& args) {
  int status = cli::kExitOk;
  std::optional<config::Config> cfg = SetUp(args, &status);
  if (!cfg) return status;
  if (int profile = ApplyProfile(args.Option("--profile", ""), &*cfg); profile != cli::kExitOk) {
    return profile;
  }
  if (args.positional.empty()) {
    PrintError("transcribe: expected FILE... (see earshot transcribe --help)");
    return cli::kExitUsage;
  }
  Result<stt::SttConfig> stt_config = options::BindStt(*cfg);
  if (!stt_config.ok()) {
    PrintError(stt_config.error().message);
    return cli::kExitRuntime;
  }
  Stats stats;
  stats.per_file = args.Option("--stats", "") == "1";
  const Clock::time_point load_start = Clock::now();
  auto model = stt_factory::LoadModel(*stt_config);
  stats.load_s = Seconds(Clock::now() - load_start);
  if (!model.ok()) {
    PrintError(model.error().message);
    return cli::kExitRuntime;
  }
  const bool one_stream = args.Option("--stream", "") == "1";
  const bool words = args.Option("--words", "") == "1";
  std::unique_ptr<stt::SttSession> stream;
  for (const std::string& path : args.positional) {
    if (!stream || !one_stream) stream = (*model)->NewSession();
    Result<stt::SttResult> result = TranscribeFile(path, *cfg, *stream, stats);
    if (!result.ok()) {
      PrintError(result.error().message);
      status = cli::kExitRuntime;
      continue;
    }
    if (!words && stt_config->command_sets.empty()) {
      std::printf("%s\t%s\n", path.c_str(), result->text.c_str());
    } else if (!words) {
      std::printf("%s\t%s\t%s\n", path.c_str(), result->text.c_str(),
                  CommandColumn(*result).c_str());
    }
    for (const stt::SttWord& w : words ? result->words : std::vector<stt::SttWord>{}) {
      std::printf("%s\t%s\t%.2f\t%.2f\n", path.c_str(), w.word.c_str(), w.start, w.end);
    }
    std::fflush(stdout);
  }
  if (args.Option("--stats", "") == "1") stats.Print();
  return status;
}

}  // namespace

const cli::Command kTranscribeCommand{"transcribe",
                                      "speech-to-text over whole files, FILE<TAB>text",
                                      kUsage,
                                      {"--profile"},
                                      {"--stats", "--stream", "--words"},
                                      Transcribe};

}  // namespace earshot::tools
