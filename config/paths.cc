#include "config/paths.h"

#include <dlfcn.h>
#include <link.h>

#include <system_error>
#include <vector>

namespace earshot::config {
namespace {

namespace fs = std::filesystem;

// The file the running code was loaded from: the shared library holding this code (libearshot),
// else the program (/proc/self/exe); nothing where neither can be told.
struct CodeFile {
  fs::path path;
  bool library = false;
};

std::optional<CodeFile> RunningCode() {
  Dl_info info{};
  link_map* map = nullptr;
  if (dladdr1(reinterpret_cast<void*>(&BundledModelPath), &info, reinterpret_cast<void**>(&map),
              RTLD_DL_LINKMAP) != 0 &&
      map != nullptr && map->l_name != nullptr && map->l_name[0] != '\0') {
    return CodeFile{fs::absolute(map->l_name), true};  // the main program's link map has no name
  }
  std::error_code error;
  fs::path program = fs::read_symlink("/proc/self/exe", error);
  if (error) return std::nullopt;
  return CodeFile{program, false};
}

bool IsUnder(const fs::path& path, const fs::path& dir) {
  const fs::path relative = path.lexically_relative(dir);
  return !relative.empty() && *relative.begin() != "..";
}

// The prefix the running code is installed under; the configured prefix when it is not in one of
// the install's directories for it (a program copied elsewhere).
fs::path InstalledPrefix(const CodeFile& code) {
  const std::vector<const char*> dirs = code.library
                                            ? std::vector<const char*>{EARSHOT_INSTALL_LIBDIR}
                                            : std::vector<const char*>{EARSHOT_INSTALL_BINDIR,
                                                                       EARSHOT_INSTALL_SBINDIR};
  for (const char* dir : dirs) {
    if (std::optional<fs::path> prefix = PrefixOf(code.path, dir)) return *prefix;
  }
  return EARSHOT_INSTALL_PREFIX;
}

}  // namespace

std::optional<fs::path> PrefixOf(const fs::path& program, const fs::path& install_dir) {
  if (install_dir.is_absolute() || install_dir.empty()) return std::nullopt;
  fs::path prefix = program.parent_path();
  const fs::path dir = install_dir.lexically_normal();
  std::vector<fs::path> parts(dir.begin(), dir.end());
  if (!parts.empty() && parts.back().empty()) parts.pop_back();  // "bin/"
  for (auto part = parts.rbegin(); part != parts.rend(); ++part) {
    if (prefix.filename() != *part) return std::nullopt;
    prefix = prefix.parent_path();
  }
  return prefix;
}

std::string BundledFilePath(std::string_view installed, std::string_view source) {
  const std::optional<CodeFile> code = RunningCode();
  if (code && IsUnder(code->path, EARSHOT_BUILD_TREE)) {
    return (fs::path(EARSHOT_SOURCE_TREE) / source).string();
  }
  const fs::path prefix = code ? InstalledPrefix(*code) : fs::path(EARSHOT_INSTALL_PREFIX);
  return (prefix / EARSHOT_INSTALL_DATADIR / "earshot" / installed).string();
}

std::string BundledModelPath(std::string_view name) {
  const std::string relative = "models/" + std::string(name);
  return BundledFilePath(relative, relative);
}

namespace {

struct BundledModel {
  std::string_view option;
  std::string_view name;  // under models/
};
constexpr BundledModel kBundledModels[] = {
    {"vad.model", "vad/vad.eshm"},
    {"stt.command_model", "commands/commands.eshm"},
};

}  // namespace

std::string ModelPath(const Config& config, std::string_view option) {
  const std::string& path = config.String(option);
  if (!path.empty()) return path;
  for (const BundledModel& bundled : kBundledModels) {
    if (bundled.option == option) return BundledModelPath(bundled.name);
  }
  return path;  // an option with no bundled model: empty is "none"
}

}  // namespace earshot::config
