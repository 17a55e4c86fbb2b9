// The keyword lists of [kws] made specs (models/kws/keywords.h) with their model files resolved:
// a bundled keyword's name (computer, snowboy, view glass) becomes its bundled file. The bundled
// keywords' files are named here and nowhere else; models/kws/ takes the paths as they come.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "models/kws/keywords.h"

namespace earshot::options {

// The keyword lists of [kws] (BindKeywords, stage_options.h, reads them): kws.models, and the
// lists parallel to it, each empty (the defaults) or one entry per model.
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
Result<std::vector<kws::KeywordSpec>> KeywordSpecs(const KeywordLists& lists);

}  // namespace earshot::options
