// `earshot kws`: every keyword's score at every 10 ms hop of a file (ungated).
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "audio/format.h"
#include "audio/frame_source.h"
#include "audio/ring_buffer.h"
#include "base/q15.h"
#include "features/front_end.h"
#include "models/kws/detector.h"
#include "models/kws/keyword_set.h"
#include "models/kws/keywords.h"
#include "models/pocketsphinx/keyphrase_verifier.h"
#include "options/stage_options.h"
#include "statemachine/model_library.h"
#include "tools/commands.h"
#include "tools/stages.h"

namespace earshot::tools {
namespace {

constexpr std::string_view kUsage =
    "usage: earshot kws [--model F]... [--config F] [--set kws.KEY=VALUE]... [--verified |\n"
    "                   --candidates] FILE\n"
    "\n"
    "Prints t<TAB>keyword<TAB>score for every 10 ms hop of FILE and every keyword (kws.models),\n"
    "in their order, with no VAD gating: t is the end of the hop in seconds, keyword the\n"
    "keyword's name (kws.names, else its model's phrase, else its file's name without .eshm),\n"
    "score the spotter's P(keyword ends here) in [0,1].\n"
    "  --model F   a keyword's model file; once per keyword (together: --set kws.models=F,...)\n"
    "  --verified  for a keyword with a second stage (a model trained from text), the score\n"
    "              is its verified confidence in [0,1] on the hop where a candidate is decided\n"
    "              (the spotter's run over its candidate threshold ended), 0 on the others\n"
    "  --candidates  instead of every hop, a line per candidate of a keyword with a second\n"
    "              stage, its fields tab-separated: t, keyword, the verified confidence, the\n"
    "              second stage's score (log-likelihood ratio per frame, or 'none'), the\n"
    "              spotter's run in hops, and 1 where the window's band above 4 kHz was empty\n"
    "              (else 0)\n";

// --model's files as kws.models, or nothing when there is none.
Result<std::optional<std::string>> ModelsSetting(const cli::Args& args) {
  const std::vector<std::string> files = args.All("--model");
  if (files.empty()) return std::optional<std::string>();
  std::string models;
  for (const std::string& file : files) {
    if (file.find(',') != std::string::npos) {
      return Error{"kws: --model " + file + ": a file name with ',' cannot be given here"};
    }
    models += (&file == &files.front() ? "" : ",") + file;
  }
  return std::optional<std::string>("kws.models=" + models);
}

// --verified: each checked keyword's candidates (its spotter's runs over its candidate threshold,
// as the pipeline's detector finds them) and their verified confidence.
class Candidates {
 public:
  Candidates(std::shared_ptr<const pocketsphinx::KeyphraseVerifier> verifier,
             const std::vector<kws::Keyword>& keywords, kws::KwsConfig config)
      : verifier_(std::move(verifier)),
        ring_(pocketsphinx::kVerifyFramesBefore + config.max_hold_frames +
                  pocketsphinx::kVerifyFramesAfter + 1,
              0) {
    config.refractory_frames = 0;  // every candidate, as the pipeline's rejected ones
    for (size_t k = 0; k < keywords.size(); ++k) {
      const std::optional<kws::KwsVerify>& verify = keywords[k].model->verify();
      config.threshold_q15 = verify ? verify->candidate_threshold_q15 : 32768;
      detectors_.emplace_back(config);
    }
  }
  struct Decided {
    size_t keyword;
    int run_hops;
    pocketsphinx::Verdict verdict;
  };
  // Hop `hop`'s audio and scores; `shown[k]` of each checked keyword becomes its confidence, and
  // the candidates decided on this hop are returned.
  const std::vector<Decided>& Push(int64_t hop, const audio::Frame& frame,
                                   std::span<const uint16_t> scores, std::vector<double>& shown) {
    ring_.Push(frame, {});
    decided_.clear();
    for (size_t k = 0; k < detectors_.size(); ++k) {
      if (!verifier_->checks(k)) continue;
      shown[k] = 0.0;
      if (std::optional<kws::Wake> wake = detectors_[k].Push(hop, scores[k])) {
        decided_.push_back(
            {k, wake->run_hops, verifier_->Check(k, wake->frame, wake->run_hops, ring_, scratch_)});
        shown[k] = decided_.back().verdict.confidence;
      }
    }
    return decided_;
  }

 private:
  std::shared_ptr<const pocketsphinx::KeyphraseVerifier> verifier_;
  std::vector<kws::WakeDetector> detectors_;
  audio::FrameRing ring_;
  std::vector<int16_t> scratch_;
  std::vector<Decided> decided_;
};

void PrintCandidate(double t, const std::string& name, const Candidates::Decided& c) {
  std::printf("%.2f\t%s\t%.5f\t", t, name.c_str(), c.verdict.confidence);
  if (c.verdict.score) {
    std::printf("%.4f", *c.verdict.score);
  } else {
    std::printf("none");
  }
  std::printf("\t%d\t%d\n", c.run_hops, c.verdict.narrowband ? 1 : 0);
}

int Kws(const cli::Args& command_args) {
  cli::Args args = command_args;
  Result<std::optional<std::string>> models = ModelsSetting(args);
  if (!models.ok()) {
    PrintError(models.error().message);
    return cli::kExitUsage;
  }
  if (*models) args.sets.push_back(**models);
  int status = cli::kExitOk;
  std::optional<config::Config> cfg = SetUp(args, &status);
  if (!cfg) return status;
  if (args.positional.size() != 1) {
    PrintError("kws: expected one FILE (see earshot kws --help)");
    return cli::kExitUsage;
  }
  Result<std::vector<kws::KeywordSpec>> specs = options::BindKeywords(*cfg);
  if (!specs.ok()) {
    PrintError(specs.error().message);
    return cli::kExitUsage;
  }
  auto front_end = MakeFrontEnd({});
  if (!front_end.ok()) {
    PrintError(front_end.error().message);
    return cli::kExitRuntime;
  }
  const features::FrontEndConfig fe_config = (*front_end)->config();
  auto set = kws::LoadKeywordSet(*specs, false, [&fe_config](const std::string& path) {
    return kws::KwsModel::Load(path, fe_config);
  });
  if (!set.ok()) {
    PrintError(set.error().message);
    return cli::kExitRuntime;
  }
  Result<kws::KwsConfig> kws_config = options::BindKws(*cfg);
  kws::KeywordSetSession session(*set, *kws_config);
  auto source = audio::FileSource::Open(args.positional[0], options::BindFileSource(*cfg));
  if (!source.ok()) {
    PrintError(source.error().message);
    return cli::kExitRuntime;
  }
  const std::vector<kws::Keyword>& keywords = (*set)->keywords();
  std::optional<Candidates> candidates;
  const bool only_candidates = args.Has("--candidates");
  if (args.Has("--verified") || only_candidates) {
    auto verifier = statemachine::LoadKeywordVerifier(*cfg, **set);
    if (!verifier.ok()) {
      PrintError(verifier.error().message);
      return cli::kExitRuntime;
    }
    if (*verifier) candidates.emplace(*verifier, keywords, *kws_config);
    if (!candidates && only_candidates) {
      PrintError("kws: --candidates: no keyword has a second stage (kws_verify)");
      return cli::kExitUsage;
    }
  }
  int64_t hop = 0;
  std::vector<double> shown(keywords.size());
  Status s = ForEachAudioFrame(**source, [&](const audio::Frame& frame) {
    (*front_end)->Process(frame);
    session.Process((*front_end)->logmel_db_q8());
    for (size_t k = 0; k < keywords.size(); ++k) shown[k] = ScoreFromQ15(session.scores()[k]);
    const double t = audio::FramesToSeconds(hop + 1);
    if (candidates) {
      for (const auto& c : candidates->Push(hop, frame, session.scores(), shown)) {
        if (only_candidates) PrintCandidate(t, keywords[c.keyword].name, c);
      }
    }
    ++hop;
    if (only_candidates) return;
    for (size_t k = 0; k < keywords.size(); ++k) {
      std::printf("%.2f\t%s\t%.5f\n", t, keywords[k].name.c_str(), shown[k]);
    }
  });
  if (!s.ok()) {
    PrintError(s.error().message);
    return cli::kExitRuntime;
  }
  return cli::kExitOk;
}

}  // namespace

const cli::Command kKwsCommand{"kws",
                               "print each keyword's score at every 10 ms hop",
                               kUsage,
                               {"--model"},
                               {"--verified", "--candidates"},
                               Kws};

}  // namespace earshot::tools
