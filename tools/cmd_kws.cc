// `earshot kws`: the keyword spotter's score at every 10 ms hop of a file (ungated).
#include <cstdio>

#include "audio/frame_source.h"
#include "config/paths.h"
#include "features/front_end.h"
#include "models/kws/kws.h"
#include "tools/commands.h"
#include "tools/stages.h"

namespace earshot::cli {
namespace {

constexpr std::string_view kUsage =
    "usage: earshot kws [--model F] [--config F] [--set kws.KEY=VALUE]... FILE\n"
    "\n"
    "Prints t<TAB>keyword<TAB>score for every 10 ms hop of FILE, with no VAD gating: t is the end of\n"
    "the hop in seconds, score the spotter's P(keyword ends here) in [0,1].\n"
    "  --model F   keyword model file (same as --set kws.model=F)\n";

int Kws(const Args& command_args) {
  Args args = command_args;
  if (const std::string model = args.Option("--model", ""); !model.empty()) {
    args.sets.push_back("kws.model=" + model);
  }
  int status = kExitOk;
  std::optional<config::Config> cfg = SetUp(args, &status);
  if (!cfg) return status;
  if (args.positional.size() != 1) {
    PrintError("kws: expected one FILE (see earshot kws --help)");
    return kExitUsage;
  }
  auto front_end = MakeFrontEnd(*cfg);
  if (!front_end.ok()) {
    PrintError(front_end.error().message);
    return kExitRuntime;
  }
  auto model = kws::KwsModel::Load(config::ModelPath(*cfg, "kws.model", "kws/computer.eshm"),
                                   (*front_end)->config());
  if (!model.ok()) {
    PrintError(model.error().message);
    return kExitRuntime;
  }
  Result<kws::KwsConfig> kws_config = kws::KwsConfig::FromConfig(*cfg);
  kws::KwsSession session(*model);
  auto source = audio::FileSource::Open(args.positional[0], SourceOptions(*cfg));
  if (!source.ok()) {
    PrintError(source.error().message);
    return kExitRuntime;
  }
  int64_t hop = 0;
  Status s = ForEachFrame(**source, **front_end, [&](const features::FrontEnd& fe) {
    const uint16_t score = session.Process(fe.logmel_db_q8());
    std::printf("%.2f\t%s\t%.5f\n", static_cast<double>(++hop) / 100.0,
                kws_config->keyword.c_str(), score / 32767.0);
  });
  if (!s.ok()) {
    PrintError(s.error().message);
    return kExitRuntime;
  }
  return kExitOk;
}

}  // namespace

const Command kKwsCommand{"kws", "print the keyword spotter's score at every 10 ms hop",
                          kUsage, {"--model"}, {}, Kws};

}  // namespace earshot::cli
