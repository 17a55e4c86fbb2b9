// The one options table of earshot (after pocketsphinx 5's arg table): name, type, default, range,
// unit and doc. It drives the config file, `--set SECTION.KEY=VALUE` and `--print-config`.
// Add an option here and nowhere else; stages read it through Config by name.
#pragma once

#include <span>
#include <string_view>

namespace earshot::config {

enum class OptionType { kInt, kFloat, kBool, kString };

struct OptionSpec {
  std::string_view name;           // "section.key"
  OptionType type;
  std::string_view default_value;  // as it would be written in TOML (strings without quotes)
  double min = 0;                  // inclusive range for kInt and kFloat
  double max = 0;
  std::string_view choices;        // for kString: allowed values separated by '|', empty = any
  std::string_view unit;           // "ms", "dB", "Hz", ... or empty
  std::string_view doc;
};

std::span<const OptionSpec> Options();
const OptionSpec* FindOption(std::string_view name);
std::string_view TypeName(OptionType type);

}  // namespace earshot::config
