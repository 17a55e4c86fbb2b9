// The one options table of earshot (after pocketsphinx 5's arg table): name, type, default, range,
// unit and doc. It drives the config file, `--set SECTION.KEY=VALUE` and `--print-config`.
// Add an option here and nowhere else; stages read it through Config by name. A list option holds
// any number of values of its element type (--set: separated by ','; TOML: an array); parallel
// lists (`parallel_to`) hold one entry per entry of another list, or none for the defaults.
#pragma once

#include <span>
#include <string_view>

namespace earshot::config {

enum class OptionType { kInt, kFloat, kBool, kString, kIntList, kFloatList, kStringList };

struct OptionSpec {
  std::string_view name;           // "section.key"
  OptionType type;
  std::string_view default_value;  // as it would be written in TOML (strings without quotes)
  double min = 0;                  // inclusive range for kInt and kFloat (and their lists' values)
  double max = 0;
  std::string_view choices;        // for kString: allowed values separated by '|', empty = any
  std::string_view unit;           // "ms", "dB", "Hz", ... or empty
  std::string_view doc;
  std::string_view parallel_to = {};  // a list's: the list it has one entry per entry of (or none)
  bool distinct = false;           // a string list's: no entry but '' twice
};

bool IsList(OptionType type);
OptionType ElementType(OptionType type);  // a list's values' type; a scalar's own

std::span<const OptionSpec> Options();
const OptionSpec* FindOption(std::string_view name);
std::string_view TypeName(OptionType type);

}  // namespace earshot::config
