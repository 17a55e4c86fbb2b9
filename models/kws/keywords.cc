#include "models/kws/keywords.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <utility>

#include "base/q15.h"
#include "models/kws/phrase.h"

namespace earshot::kws {

std::string NameProblem(const std::string& name) {
  std::optional<std::vector<int32_t>> code_points = DecodeUtf8(name);
  if (!code_points) return "not UTF-8";
  return PhraseProblem(*code_points);
}

int32_t ThresholdQ15(double sensitivity, int32_t default_threshold_q15) {
  constexpr double kOne = kQ15One;
  const double s = std::clamp(sensitivity, 0.0, 1.0);
  const auto t0 = static_cast<double>(default_threshold_q15);
  const double threshold = s <= 0.5 ? kOne - (kOne - t0) * s / 0.5 : t0 * (1.0 - s) / 0.5;
  return static_cast<int32_t>(std::clamp(std::lround(threshold), 0L, static_cast<long>(kQ15One)));
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
