// `earshot vad`: the voice-activity detector over a file, one line per 10 ms frame.
#include <cstdio>

#include "audio/format.h"
#include "base/q15.h"
#include "options/stage_options.h"
#include "tools/commands.h"
#include "tools/stages.h"

namespace earshot::tools {
namespace {

constexpr std::string_view kUsage =
    "usage: earshot vad [--config F] [--set vad.KEY=VALUE]... FILE\n"
    "\n"
    "Prints t<TAB>score<TAB>speech for every 10 ms frame of FILE: t is the frame's start in seconds,\n"
    "score the VAD's P(speech) in [0,1], speech the decision (0/1) after the threshold, minimum\n"
    "speech and hangover of the [vad] section (see --print-config).\n";

int Vad(const cli::Args& args) {
  int status = cli::kExitOk;
  std::optional<config::Config> cfg = SetUp(args, &status);
  if (!cfg) return status;
  if (args.positional.size() != 1) {
    PrintError("vad: expected one FILE (see earshot vad --help)");
    return cli::kExitUsage;
  }
  Result<VadStage> stage = VadStage::Create(*cfg);
  if (!stage.ok()) {
    PrintError(stage.error().message);
    return cli::kExitRuntime;
  }
  auto source = audio::FileSource::Open(args.positional[0], options::BindFileSource(*cfg));
  if (!source.ok()) {
    PrintError(source.error().message);
    return cli::kExitRuntime;
  }
  Status s = stage->Run(**source, [](const vad::VadFrame& f) {
    std::printf("%.2f\t%.5f\t%d\n", audio::FramesToSeconds(f.index), ScoreFromQ15(f.score_q15),
                f.speech ? 1 : 0);
  });
  if (!s.ok()) {
    PrintError(s.error().message);
    return cli::kExitRuntime;
  }
  return cli::kExitOk;
}

}  // namespace

const cli::Command kVadCommand{
    "vad", "print the voice-activity score and decision per 10 ms frame", kUsage, {}, {}, Vad};

}  // namespace earshot::tools
