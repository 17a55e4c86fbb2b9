#include "options/keywords.h"

#include <string_view>
#include <utility>

#include "audio/format.h"
#include "config/paths.h"

namespace earshot::options {
namespace {

using kws::KeywordSpec;
using kws::NameProblem;

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
    if (!refractory_ms.empty()) spec.refractory_frames = audio::MsToFrames(refractory_ms[k]);
    specs.push_back(std::move(spec));
  }
  return specs;
}

}  // namespace earshot::options
