// The config's keywords ([kws]: kws.models and the lists parallel to it), the threshold of a
// sensitivity, and the keywords' models loaded into a KeywordSet (keyword_set.h). The bundled
// keywords' files are named here and nowhere else.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "models/kws/keyword_set.h"
#include "models/kws/kws.h"

namespace earshot::kws {

inline constexpr double kDefaultSensitivity = 0.5;
inline constexpr int kDefaultRefractoryMs = 1000;

struct KeywordSpec {
  std::string name;        // "": its model's phrase, else the model file's name without .eshm
  std::string path;        // its model file
  std::string small_path;  // its model in the governor's small profiles; "": `path` serves both
  double sensitivity = kDefaultSensitivity;  // 0 .. 1
  int refractory_frames = kDefaultRefractoryMs / 10;
};

// The keyword lists of [kws] (options/stage_options.h binds them): kws.models, and the lists
// parallel to it, each empty (the defaults) or one entry per model.
struct KeywordLists {
  std::vector<std::string> models;
  std::vector<std::string> small_models;
  std::vector<std::string> names;
  std::vector<double> sensitivities;
  std::vector<int64_t> refractory_ms;
};

// One spec per kws.models entry, the other lists' entries (their defaults where a list is empty)
// beside it. An entry that is a bundled keyword's name (computer, snowboy, view glass) is its
// bundled model file (models/kws/computer.eshm; its small one models/kws/computer_small.eshm;
// snowboy's and view glass's one model serves both); any other a path.
// Errors name the option; a parallel list of another length is one.
Result<std::vector<KeywordSpec>> KeywordSpecs(const KeywordLists& lists);

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
