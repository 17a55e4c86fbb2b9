// `earshot kws`: every keyword's score at every 10 ms hop of a file (ungated).
#include <cstdio>

#include "audio/frame_source.h"
#include "features/front_end.h"
#include "models/kws/keyword_set.h"
#include "models/kws/keywords.h"
#include "tools/commands.h"
#include "tools/stages.h"

namespace earshot::cli {
namespace {

constexpr std::string_view kUsage =
    "usage: earshot kws [--model F]... [--config F] [--set kws.KEY=VALUE]... FILE\n"
    "\n"
    "Prints t<TAB>keyword<TAB>score for every 10 ms hop of FILE and every keyword (kws.models),\n"
    "in their order, with no VAD gating: t is the end of the hop in seconds, keyword the\n"
    "keyword's name (kws.names, else its model's phrase, else its file's name without .eshm),\n"
    "score the spotter's P(keyword ends here) in [0,1].\n"
    "  --model F   a keyword's model file; once per keyword (together: --set kws.models=F,...)\n";

// --model's files as kws.models, or nothing when there is none.
Result<std::optional<std::string>> ModelsSetting(const Args& args) {
  std::string models;
  bool any = false;
  for (const auto& [name, value] : args.options) {
    if (name != "--model") continue;
    if (value.find(',') != std::string::npos) {
      return Error{"kws: --model " + value + ": a file name with ',' cannot be given here"};
    }
    models += (any ? "," : "") + value;
    any = true;
  }
  if (!any) return std::optional<std::string>();
  return std::optional<std::string>("kws.models=" + models);
}

int Kws(const Args& command_args) {
  Args args = command_args;
  Result<std::optional<std::string>> models = ModelsSetting(args);
  if (!models.ok()) {
    PrintError(models.error().message);
    return kExitUsage;
  }
  if (*models) args.sets.push_back(**models);
  int status = kExitOk;
  std::optional<config::Config> cfg = SetUp(args, &status);
  if (!cfg) return status;
  if (args.positional.size() != 1) {
    PrintError("kws: expected one FILE (see earshot kws --help)");
    return kExitUsage;
  }
  Result<std::vector<kws::KeywordSpec>> specs = kws::KeywordSpecs(*cfg);
  if (!specs.ok()) {
    PrintError(specs.error().message);
    return kExitUsage;
  }
  auto front_end = MakeFrontEnd(*cfg);
  if (!front_end.ok()) {
    PrintError(front_end.error().message);
    return kExitRuntime;
  }
  const features::FrontEndConfig fe_config = (*front_end)->config();
  auto set = kws::LoadKeywordSet(*specs, false, [&fe_config](const std::string& path) {
    return kws::KwsModel::Load(path, fe_config);
  });
  if (!set.ok()) {
    PrintError(set.error().message);
    return kExitRuntime;
  }
  Result<kws::KwsConfig> kws_config = kws::KwsConfig::FromConfig(*cfg);
  kws::KeywordSetSession session(*set, *kws_config);
  auto source = audio::FileSource::Open(args.positional[0], SourceOptions(*cfg));
  if (!source.ok()) {
    PrintError(source.error().message);
    return kExitRuntime;
  }
  const std::vector<kws::Keyword>& keywords = (*set)->keywords();
  int64_t hop = 0;
  Status s = ForEachFrame(**source, **front_end, [&](const features::FrontEnd& fe) {
    session.Process(fe.logmel_db_q8());
    const double t = static_cast<double>(++hop) / 100.0;
    for (size_t k = 0; k < keywords.size(); ++k) {
      std::printf("%.2f\t%s\t%.5f\n", t, keywords[k].name.c_str(), session.scores()[k] / 32767.0);
    }
  });
  if (!s.ok()) {
    PrintError(s.error().message);
    return kExitRuntime;
  }
  return kExitOk;
}

}  // namespace

const Command kKwsCommand{"kws", "print each keyword's score at every 10 ms hop", kUsage,
                          {"--model"}, {}, Kws};

}  // namespace earshot::cli
