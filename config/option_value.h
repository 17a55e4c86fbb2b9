// One option's value and its text forms: parsed from `--set`'s text or from a TOML node, checked
// against its spec (type, range, choices), and written back as TOML. A list's text form is its
// entries separated by ',' (spaces around each dropped; an empty text is the empty list; an entry
// cannot hold a ','), its TOML form an array. Errors name the option and say what was expected.
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/result.h"
#include "config/options.h"

namespace earshot::config {

using Value = std::variant<int64_t, double, bool, std::string, std::vector<int64_t>,
                           std::vector<double>, std::vector<std::string>>;

// The value of `text` (as in --set or the table's defaults) for the spec's type.
Result<Value> ParseText(const OptionSpec& spec, std::string_view text);
// The value of a TOML node (an integer is accepted for a number; a list needs an array).
Result<Value> FromNode(const OptionSpec& spec, const toml::node& node);
// The value as TOML writes it: 3, 0.5, true, 'text', ['a', 'b'], [].
std::string TomlText(const Value& value);
// What the spec accepts, for messages and the printed config: "[0, 1] ms", "one of a|b",
// "list of numbers in [0, 1]; one per kws.models entry, or none".
std::string RangeText(const OptionSpec& spec);
// A list's entries (0 for a scalar).
size_t ListSize(const Value& value);

}  // namespace earshot::config
