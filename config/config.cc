#include "config/config.h"

#include <toml++/toml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "config/options.h"
#include "config/read_file.h"

namespace earshot::config {
namespace {

std::string FormatNumber(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, end);
  return s;
}

std::string RangeText(const OptionSpec& spec) {
  if (spec.type == OptionType::kInt || spec.type == OptionType::kFloat) {
    std::string unit = spec.unit.empty() ? "" : " " + std::string(spec.unit);
    return "[" + FormatNumber(spec.min) + ", " + FormatNumber(spec.max) + "]" + unit;
  }
  if (spec.type == OptionType::kString && !spec.choices.empty()) {
    return "one of " + std::string(spec.choices);
  }
  return std::string(TypeName(spec.type));
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
               " is out of range: expected " + RangeText(spec)};
}

// Checks a parsed value against the spec's range or choices.
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

Error WrongType(const OptionSpec& spec, std::string_view text) {
  // RangeText is the type's name alone for a boolean or a free string: not twice.
  const std::string type(TypeName(spec.type)), range = RangeText(spec);
  return Error{"option " + std::string(spec.name) + " = " + std::string(text) + ": expected " +
               type + (range == type ? "" : " " + range)};
}

// Parses the text form of a value (as in --set or the table's defaults).
Result<Value> ParseText(const OptionSpec& spec, std::string_view text) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  switch (spec.type) {
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
    case OptionType::kString:
      return Checked(spec, std::string(text), text);
  }
  return WrongType(spec, text);
}

// Converts one TOML node to a value of the spec's type (an integer is accepted for a number).
Result<Value> FromNode(const OptionSpec& spec, const toml::node& node) {
  std::ostringstream text;
  node.visit([&text](const auto& v) { text << v; });
  switch (spec.type) {
    case OptionType::kInt:
      if (auto v = node.value_exact<int64_t>()) return Checked(spec, *v, text.str());
      break;
    case OptionType::kFloat:
      if (node.is_number()) return Checked(spec, *node.value<double>(), text.str());
      break;
    case OptionType::kBool:
      if (auto v = node.value_exact<bool>()) return Value{*v};
      break;
    case OptionType::kString:
      if (auto v = node.value_exact<std::string>()) return Checked(spec, *v, text.str());
      break;
  }
  return WrongType(spec, text.str());
}

// A config is a few KB; the bound keeps a wrong path (a log, an image) from being read whole.
constexpr size_t kMaxConfigBytes = size_t{1} << 20;
constexpr int kMaxKeyDots = 8;

// Options are SECTION.KEY: a table header or key of many dotted parts is never one, and
// toml++ recurses once per part (50,000 of them overflowed the stack), so such a line is refused
// before parsing. A line's key is its [header], or what comes before its '='.
Status CheckKeyDepth(std::string_view text, const std::string& file) {
  int line_number = 0;
  while (!text.empty()) {
    ++line_number;
    const size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    const size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] == '#') continue;
    const std::string_view key = line[first] == '[' ? line.substr(0, line.find(']'))
                                                    : line.substr(0, line.find('='));
    if (std::count(key.begin(), key.end(), '.') > kMaxKeyDots) {
      return Error{file + ":" + std::to_string(line_number) +
                   ": a key of more than " + std::to_string(kMaxKeyDots + 1) +
                   " dotted parts; options are SECTION.KEY, e.g. [audio] preroll_ms = 1500"};
    }
  }
  return OkStatus();
}

[[noreturn]] void UnknownOptionBug(std::string_view name) {
  std::fprintf(stderr, "earshot: bug: option %.*s is not in the options table with that type\n",
               static_cast<int>(name.size()), name.data());
  std::abort();
}

}  // namespace

Config Config::Defaults() {
  Config c;
  for (const OptionSpec& spec : Options()) {
    Result<Value> v = ParseText(spec, spec.default_value);
    if (!v.ok()) UnknownOptionBug(spec.name);  // a default outside its own range
    c.values_.emplace(std::string(spec.name), std::move(v).value());
  }
  return c;
}

Result<Config> Config::FromFileOrDefaults(const std::filesystem::path& path) {
  if (path.empty()) return Defaults();
  return FromFile(path);
}

Result<Config> Config::FromFile(const std::filesystem::path& path) {
  const std::string file = path.string();
  Result<std::string> text = ReadWholeFile(file, kMaxConfigBytes, "a config");
  if (!text.ok()) return text.error();
  if (Status s = CheckKeyDepth(*text, file); !s.ok()) return s.error();
  toml::table root;
  try {
    root = toml::parse(*text, file);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    return Error{file + ":" + std::to_string(where.line) + ":" + std::to_string(where.column) +
                 ": invalid TOML: " + std::string(e.description())};
  }
  Config c = Defaults();
  for (const auto& [section, node] : root) {
    const toml::table* table = node.as_table();
    if (table == nullptr) {
      return Error{file + ": key '" + std::string(section.str()) +
                   "' must be a [section] table, e.g. [audio]"};
    }
    for (const auto& [key, value] : *table) {
      const std::string name = std::string(section.str()) + "." + std::string(key.str());
      const OptionSpec* spec = FindOption(name);
      if (spec == nullptr) return Error{file + ": unknown option " + name};
      Result<Value> v = FromNode(*spec, value);
      if (!v.ok()) return Error{file + ": " + v.error().message};
      c.values_[name] = std::move(v).value();
    }
  }
  return c;
}

Status Config::SetAssignment(std::string_view assignment) {
  size_t eq = assignment.find('=');
  if (eq == std::string_view::npos) {
    return Error{std::string(assignment) + ": expected SECTION.KEY=VALUE"};
  }
  return Set(assignment.substr(0, eq), assignment.substr(eq + 1));
}

Status Config::Set(std::string_view name, std::string_view text) {
  const OptionSpec* spec = FindOption(name);
  if (spec == nullptr) return Error{"unknown option " + std::string(name)};
  Result<Value> v = ParseText(*spec, text);
  if (!v.ok()) return v.error();
  values_[std::string(name)] = std::move(v).value();
  return OkStatus();
}

const Value& Config::Get(std::string_view name) const {
  auto it = values_.find(name);
  if (it == values_.end()) UnknownOptionBug(name);
  return it->second;
}

int64_t Config::Int(std::string_view name) const {
  const auto* v = std::get_if<int64_t>(&Get(name));
  if (v == nullptr) UnknownOptionBug(name);
  return *v;
}

double Config::Float(std::string_view name) const {
  const auto* v = std::get_if<double>(&Get(name));
  if (v == nullptr) UnknownOptionBug(name);
  return *v;
}

bool Config::Bool(std::string_view name) const {
  const auto* v = std::get_if<bool>(&Get(name));
  if (v == nullptr) UnknownOptionBug(name);
  return *v;
}

const std::string& Config::String(std::string_view name) const {
  const auto* v = std::get_if<std::string>(&Get(name));
  if (v == nullptr) UnknownOptionBug(name);
  return *v;
}

std::string Config::ToToml() const {
  std::string out = "# earshot effective configuration\n";
  std::string_view section;
  for (const OptionSpec& spec : Options()) {
    std::string_view name = spec.name;
    size_t dot = name.find('.');
    if (name.substr(0, dot) != section) {
      section = name.substr(0, dot);
      out += "\n[" + std::string(section) + "]\n";
    }
    out += "# " + std::string(spec.doc) + " (" + RangeText(spec) + ")\n";
    out += std::string(name.substr(dot + 1)) + " = ";
    const Value& v = Get(name);
    if (const auto* i = std::get_if<int64_t>(&v)) {
      out += std::to_string(*i);
    } else if (const auto* d = std::get_if<double>(&v)) {
      std::string s = FormatNumber(*d);
      if (s.find_first_of(".en") == std::string::npos) s += ".0";  // keep TOML's float type
      out += s;
    } else if (const auto* b = std::get_if<bool>(&v)) {
      out += *b ? "true" : "false";
    } else {
      std::ostringstream quoted;
      quoted << toml::value<std::string>(std::get<std::string>(v));
      out += quoted.str();
    }
    out += "\n";
  }
  return out;
}

}  // namespace earshot::config
