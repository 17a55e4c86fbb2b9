#include "config/paths.h"

#include <filesystem>

namespace earshot::config {

std::string BundledModelPath(std::string_view name) {
  const std::string installed = std::string(EARSHOT_INSTALLED_MODELS) + "/" + std::string(name);
  if (std::filesystem::exists(installed)) return installed;
  return std::string(EARSHOT_SOURCE_MODELS) + "/" + std::string(name);
}

std::string ModelPath(const Config& config, std::string_view option, std::string_view bundled) {
  const std::string& path = config.String(option);
  return path.empty() ? BundledModelPath(bundled) : path;
}

}  // namespace earshot::config
