#include "models/kws/keywords.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string_view>
#include <utility>

#include "config/paths.h"
#include "models/kws/phrase.h"

namespace earshot::kws {
namespace {

struct BundledKeyword {
  std::string_view name, model, small_model;  // files under the bundled models' directory
};
// computer learnt from recordings (a large and a small model); snowboy and view glass from their
// text alone (docs/wakeword.md), one model for both profiles (small_model "").
constexpr BundledKeyword kBundled[] = {
    {"computer", "kws/computer.eshm", "kws/computer_small.eshm"},
    {"snowboy", "kws/snowboy.eshm", ""},
    {"view glass", "kws/view_glass.eshm", ""},
};

const BundledKeyword* Bundled(std::string_view entry) {
  for (const BundledKeyword& b : kBundled) {
    if (b.name == entry) return &b;
  }
  return nullptr;
}

// A kws.models or kws.small_models entry's file: a bundled keyword's (its small model's when
// `small`, its model where it has none), else the path as it is. An empty small-model entry is
// the bundled keyword's small model, or "" (none: its model serves both) for a keyword of its own
// file or a bundled one without a small model.
Result<std::string> ModelFile(const char* option, const std::string& entry,
                              const std::string& model, bool small) {
  const BundledKeyword* bundled = Bundled(entry.empty() && small ? model : entry);
  if (bundled != nullptr) {
    if (!small || bundled->small_model.empty()) {
      return entry.empty() ? std::string() : config::BundledModelPath(bundled->model);
    }
    return config::BundledModelPath(bundled->small_model);
  }
  if (entry.empty() && !small) {
    return Error{std::string("option ") + option + ": an entry is empty"};
  }
  return entry;
}

// Empty if `name` can name a keyword (phrase.h's rules), else the cause.
std::string NameProblem(const std::string& name) {
  std::optional<std::vector<int32_t>> code_points = DecodeUtf8(name);
  if (!code_points) return "not UTF-8";
  return PhraseProblem(*code_points);
}

// Each list parallel to kws.models holds one entry per model, or none (the binding checks the
// options table first, whose message it would give: this guards other callers).
Status CheckParallel(const KeywordLists& lists) {
  const size_t n = lists.models.size();
  for (const auto& [name, size] : {std::pair{"kws.small_models", lists.small_models.size()},
                                   std::pair{"kws.names", lists.names.size()},
                                   std::pair{"kws.sensitivities", lists.sensitivities.size()},
                                   std::pair{"kws.refractory_ms", lists.refractory_ms.size()}}) {
    if (size != 0 && size != n) {
      return Error{std::string("option ") + name + " has " + std::to_string(size) +
                   " entries and kws.models " + std::to_string(n) +
                   ": give one per kws.models entry, or none for the defaults"};
    }
  }
  return OkStatus();
}

}  // namespace

Result<std::vector<KeywordSpec>> KeywordSpecs(const KeywordLists& lists) {
  const std::vector<std::string>& models = lists.models;
  const std::vector<std::string>& small = lists.small_models;
  const std::vector<std::string>& names = lists.names;
  const std::vector<double>& sensitivities = lists.sensitivities;
  const std::vector<int64_t>& refractory_ms = lists.refractory_ms;
  if (Status s = CheckParallel(lists); !s.ok()) return s.error();
  if (models.empty()) {
    return Error{
        "option kws.models is empty: the keyword stage listens for one keyword at least "
        "(the bundled one: kws.models = computer)"};
  }
  std::vector<KeywordSpec> specs;
  for (size_t k = 0; k < models.size(); ++k) {
    KeywordSpec spec;
    Result<std::string> path = ModelFile("kws.models", models[k], models[k], false);
    if (!path.ok()) return path.error();
    spec.path = std::move(path).value();
    path = ModelFile("kws.small_models", small.empty() ? "" : small[k], models[k], true);
    if (!path.ok()) return path.error();
    spec.small_path = std::move(path).value();
    if (!names.empty()) spec.name = names[k];
    if (const std::string problem = spec.name.empty() ? "" : NameProblem(spec.name);
        !problem.empty()) {
      return Error{"option kws.names: '" + spec.name + "' is no keyword name: " + problem};
    }
    if (!sensitivities.empty()) spec.sensitivity = sensitivities[k];
    if (!refractory_ms.empty()) spec.refractory_frames = static_cast<int>(refractory_ms[k] / 10);
    specs.push_back(std::move(spec));
  }
  return specs;
}

int32_t ThresholdQ15(double sensitivity, int32_t default_threshold_q15) {
  constexpr double kOne = 32768.0;  // 1.0 in Q15
  const double s = std::clamp(sensitivity, 0.0, 1.0);
  const auto t0 = static_cast<double>(default_threshold_q15);
  const double threshold = s <= 0.5 ? kOne - (kOne - t0) * s / 0.5 : t0 * (1.0 - s) / 0.5;
  return static_cast<int32_t>(std::clamp(std::lround(threshold), 0L, 32768L));
}

Result<std::shared_ptr<const KeywordSet>> LoadKeywordSet(const std::vector<KeywordSpec>& specs,
                                                         bool small, const ModelLoader& load) {
  std::vector<Keyword> keywords;
  for (const KeywordSpec& spec : specs) {
    const bool own_small = small && !spec.small_path.empty();
    Keyword keyword{spec.name, nullptr, own_small ? spec.small_path : spec.path, own_small,
                    spec.refractory_frames};
    // The large model names the keyword, so that its name is the same in every profile.
    std::shared_ptr<const KwsModel> large;
    if (!own_small || keyword.name.empty()) {
      Result<std::shared_ptr<const KwsModel>> model = load(spec.path);
      if (!model.ok()) return model.error();
      large = std::move(model).value();
    }
    if (keyword.name.empty()) {
      keyword.name = !large->phrase().empty() ? large->phrase()
                                              : std::filesystem::path(spec.path).stem().string();
      if (const std::string problem = NameProblem(keyword.name); !problem.empty()) {
        return Error{spec.path + ": its stem '" + keyword.name + "' is no keyword name (" +
                     problem + "): give the keyword one in kws.names"};
      }
    }
    if (own_small) {
      Result<std::shared_ptr<const KwsModel>> model = load(spec.small_path);
      if (!model.ok()) return model.error();
      keyword.model = std::move(model).value();
    } else {
      keyword.model = large;
    }
    keywords.push_back(std::move(keyword));
  }
  Result<std::shared_ptr<const KeywordSet>> set = KeywordSet::Create(std::move(keywords));
  if (!set.ok()) return Error{set.error().message + ": kws.names can name them apart"};
  return set;
}

}  // namespace earshot::kws
