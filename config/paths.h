// Where the bundled model files are: installed under the data directory, else in the source tree
// this binary was built from (so a build runs without installing).
#pragma once

#include <string>
#include <string_view>

#include "config/config.h"

namespace earshot::config {

// A bundled model (e.g. "vad/vad.eshm"): the installed copy, else the source tree's.
std::string BundledModelPath(std::string_view name);

// A model file: the option's value, or the bundled model `bundled` when the option is empty.
std::string ModelPath(const Config& config, std::string_view option, std::string_view bundled);

}  // namespace earshot::config
