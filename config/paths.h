// Where the bundled files (models, the sample) are. Code run from the build tree it was built in
// reads the source tree's, so a build runs without installing; any other copy (installed, staged
// under DESTDIR, moved with its prefix) reads those under its own prefix, found from where the code
// was loaded from: the program (/proc/self/exe, in bin/ or sbin/), or libearshot (in lib/);
// never the source tree.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "config/config.h"

namespace earshot::config {

// The install prefix of a program at `program` installed in `install_dir` (relative to the
// prefix, e.g. "bin" or "lib/x86_64-linux-gnu"): `program`'s directory less `install_dir`, or
// nothing when it is not in such a directory.
std::optional<std::filesystem::path> PrefixOf(const std::filesystem::path& program,
                                              const std::filesystem::path& install_dir);

// A bundled file: the source tree's `source` (relative to the source root) for code of the build
// tree, else `installed` under the prefix's share/earshot.
std::string BundledFilePath(std::string_view installed, std::string_view source);

// A bundled model (e.g. "vad/vad.eshm"), installed in share/earshot/models, in the source's models/.
std::string BundledModelPath(std::string_view name);

// A model file: the option's value (vad.model, stt.command_model), or, when it is empty, the
// bundled model that stands for it (the one place that names them; the keywords' are in
// options/keywords.cc's table of bundled keywords).
std::string ModelPath(const Config& config, std::string_view option);

}  // namespace earshot::config
