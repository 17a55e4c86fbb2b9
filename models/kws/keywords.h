// The keywords listened for: each one's spec (its model files, resolved: options/keywords.h makes
// the specs of the config's lists and names the bundled keywords' files), the threshold of a
// sensitivity, and the keywords' models loaded into a KeywordSet (keyword_set.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "audio/format.h"
#include "base/result.h"
#include "models/kws/keyword_set.h"
#include "models/kws/kws.h"

namespace earshot::kws {

inline constexpr double kDefaultSensitivity = 0.5;

struct KeywordSpec {
  std::string name;        // "": its model's phrase, else the model file's name without .eshm
  std::string path;        // its model file
  std::string small_path;  // its model in the governor's small profiles; "": `path` serves both
  double sensitivity = kDefaultSensitivity;  // 0 .. 1
  int refractory_frames = audio::MsToFrames(kDefaultRefractoryMs);
};

// Empty if `name` can name a keyword (phrase.h's rules), else the cause.
std::string NameProblem(const std::string& name);

// The score threshold, Q15 with 1.0 = 32768, of `sensitivity` (0 .. 1) for a model whose
// threshold at sensitivity 0.5 is `default_threshold_q15` (t0): from 32768 (never: scores are at
// most 32767) at 0 down to t0 at 0.5, then down to 0 (every hop) at 1, linearly:
//   s <= 0.5: 32768 - (32768 - t0) * s / 0.5      s > 0.5: t0 * (1 - s) / 0.5
// rounded to the nearest integer and clamped to [0, 32768].
int32_t ThresholdQ15(double sensitivity, int32_t default_threshold_q15);

// Loads a model file (a cache may stand behind it).
using ModelLoader = std::function<Result<std::shared_ptr<const KwsModel>>(const std::string& path)>;

// The keywords of `specs` with their models at one size (`small`: each one's small model, where
// it has one), loaded by `load`. A keyword's name is its spec's, else the phrase of its (large)
// model, else the stem of that model's file, the same at either size.
Result<std::shared_ptr<const KeywordSet>> LoadKeywordSet(const std::vector<KeywordSpec>& specs,
                                                         bool small, const ModelLoader& load);

}  // namespace earshot::kws
