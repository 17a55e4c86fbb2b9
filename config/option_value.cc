#include "config/option_value.h"

#include <charconv>
#include <cmath>
#include <sstream>

namespace earshot::config {
namespace {

std::string FormatNumber(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

// A scalar spec's range or choices; a bare type name when it has none.
std::string ScalarRangeText(const OptionSpec& spec) {
  const OptionType type = ElementType(spec.type);
  if (type == OptionType::kInt || type == OptionType::kFloat) {
    std::string unit = spec.unit.empty() ? "" : " " + std::string(spec.unit);
    return "[" + FormatNumber(spec.min) + ", " + FormatNumber(spec.max) + "]" + unit;
  }
  if (type == OptionType::kString && !spec.choices.empty()) {
    return "one of " + std::string(spec.choices);
  }
  return std::string(TypeName(type));
}

bool InChoices(std::string_view choices, std::string_view v) {
  while (!choices.empty()) {
    size_t bar = choices.find('|');
    if (choices.substr(0, bar) == v) return true;
    if (bar == std::string_view::npos) break;
    choices.remove_prefix(bar + 1);
  }
  return false;
}

Error OutOfRange(const OptionSpec& spec, std::string_view text) {
  return Error{"option " + std::string(spec.name) + " = " + std::string(text) +
               " is out of range: expected " + ScalarRangeText(spec)};
}

// Checks a parsed scalar against the spec's range or choices.
Result<Value> Checked(const OptionSpec& spec, Value v, std::string_view text) {
  if (const auto* i = std::get_if<int64_t>(&v)) {
    const auto d = static_cast<double>(*i);
    if (d < spec.min || d > spec.max) return OutOfRange(spec, text);
  } else if (const auto* d = std::get_if<double>(&v)) {
    if (!std::isfinite(*d) || *d < spec.min || *d > spec.max) return OutOfRange(spec, text);
  } else if (const auto* s = std::get_if<std::string>(&v)) {
    if (!spec.choices.empty() && !InChoices(spec.choices, *s)) return OutOfRange(spec, text);
  }
  return v;
}

// A value (a list's: one of its entries) of the wrong type.
Error WrongType(const OptionSpec& spec, std::string_view text) {
  // The range is the type's name alone for a boolean or a free string: not twice.
  const std::string type(TypeName(ElementType(spec.type))), range = ScalarRangeText(spec);
  return Error{"option " + std::string(spec.name) + " = " + std::string(text) + ": expected " +
               type + (range == type ? "" : " " + range)};
}

Result<Value> ParseScalar(const OptionSpec& spec, std::string_view text) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  switch (ElementType(spec.type)) {
    case OptionType::kInt: {
      int64_t v = 0;
      auto [p, ec] = std::from_chars(first, last, v);
      if (ec != std::errc() || p != last) return WrongType(spec, text);
      return Checked(spec, v, text);
    }
    case OptionType::kFloat: {
      double v = 0;
      auto [p, ec] = std::from_chars(first, last, v);
      if (ec != std::errc() || p != last) return WrongType(spec, text);
      return Checked(spec, v, text);
    }
    case OptionType::kBool:
      if (text == "true") return Value{true};
      if (text == "false") return Value{false};
      return WrongType(spec, text);
    default:
      return Checked(spec, std::string(text), text);
  }
}

Result<Value> ScalarFromNode(const OptionSpec& spec, const toml::node& node) {
  std::ostringstream text;
  node.visit([&text](const auto& v) { text << v; });
  switch (ElementType(spec.type)) {
    case OptionType::kInt:
      if (auto v = node.value_exact<int64_t>()) return Checked(spec, *v, text.str());
      break;
    case OptionType::kFloat:
      if (node.is_number()) return Checked(spec, *node.value<double>(), text.str());
      break;
    case OptionType::kBool:
      if (auto v = node.value_exact<bool>()) return Value{*v};
      break;
    default:
      if (auto v = node.value_exact<std::string>()) return Checked(spec, *v, text.str());
      break;
  }
  return WrongType(spec, text.str());
}

// Appends a parsed scalar to a list value of the same element type.
void Append(Value& list, Value item) {
  std::visit(
      [&item](auto& entries) {
        using L = std::decay_t<decltype(entries)>;
        if constexpr (requires { typename L::value_type; } && !std::is_same_v<L, std::string>) {
          entries.push_back(std::get<typename L::value_type>(std::move(item)));
        }
      },
      list);
}

Value EmptyList(OptionType type) {
  if (type == OptionType::kIntList) return std::vector<int64_t>{};
  if (type == OptionType::kFloatList) return std::vector<double>{};
  return std::vector<std::string>{};
}

std::string_view Trimmed(std::string_view s) {
  const size_t first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

std::string ScalarToml(const auto& v) {
  using V = std::decay_t<decltype(v)>;
  if constexpr (std::is_same_v<V, int64_t>) {
    return std::to_string(v);
  } else if constexpr (std::is_same_v<V, double>) {
    std::string s = FormatNumber(v);
    if (s.find_first_of(".en") == std::string::npos) s += ".0";  // keep TOML's float type
    return s;
  } else if constexpr (std::is_same_v<V, bool>) {
    return v ? "true" : "false";
  } else {
    std::ostringstream quoted;
    quoted << toml::value<std::string>(v);
    return quoted.str();
  }
}

}  // namespace

Result<Value> ParseText(const OptionSpec& spec, std::string_view text) {
  if (!IsList(spec.type)) return ParseScalar(spec, text);
  Value list = EmptyList(spec.type);
  if (Trimmed(text).empty()) return list;
  for (;;) {
    const size_t comma = text.find(',');
    Result<Value> item = ParseScalar(spec, Trimmed(text.substr(0, comma)));
    if (!item.ok()) return item.error();
    Append(list, std::move(item).value());
    if (comma == std::string_view::npos) return list;
    text.remove_prefix(comma + 1);
  }
}

Result<Value> FromNode(const OptionSpec& spec, const toml::node& node) {
  if (!IsList(spec.type)) return ScalarFromNode(spec, node);
  const toml::array* array = node.as_array();
  if (array == nullptr) {
    std::ostringstream text;
    node.visit([&text](const auto& v) { text << v; });
    return Error{"option " + std::string(spec.name) + " = " + text.str() + ": expected a " +
                 RangeText(spec) + " (a TOML array, e.g. [])"};
  }
  Value list = EmptyList(spec.type);
  for (const toml::node& element : *array) {
    Result<Value> item = ScalarFromNode(spec, element);
    if (!item.ok()) return item.error();
    Append(list, std::move(item).value());
  }
  return list;
}

std::string TomlText(const Value& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using V = std::decay_t<decltype(v)>;
        if constexpr (requires { typename V::value_type; } && !std::is_same_v<V, std::string>) {
          std::string out = "[";
          for (const auto& entry : v) out += (out.size() > 1 ? ", " : "") + ScalarToml(entry);
          return out + "]";
        } else {
          return ScalarToml(v);
        }
      },
      value);
}

std::string RangeText(const OptionSpec& spec) {
  if (!IsList(spec.type)) return ScalarRangeText(spec);
  std::string text(TypeName(spec.type));
  const std::string values = ScalarRangeText(spec);
  if (values != TypeName(ElementType(spec.type))) text += " in " + values;
  if (!spec.parallel_to.empty()) {
    text += "; one per " + std::string(spec.parallel_to) + " entry, or none";
  }
  return text;
}

size_t ListSize(const Value& value) {
  return std::visit(
      [](const auto& v) -> size_t {
        using V = std::decay_t<decltype(v)>;
        if constexpr (requires { typename V::value_type; } && !std::is_same_v<V, std::string>) {
          return v.size();
        } else {
          return 0;
        }
      },
      value);
}

}  // namespace earshot::config
