#include "config/config.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <system_error>
#include <vector>

#include "base/read_file.h"
#include "config/options.h"

namespace earshot::config {
namespace {

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

// The drop-ins of config file `path`: PATH.d/*.toml, in byte order of their names; none without
// PATH.d. Other names in PATH.d are not read (an editor's backup, a README).
Result<std::vector<std::string>> DropIns(const std::filesystem::path& path) {
  std::filesystem::path dir = path;
  dir += ".d";
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(dir, error);
  if (status.type() == std::filesystem::file_type::not_found) return std::vector<std::string>{};
  if (error || !std::filesystem::is_directory(status)) {
    return Error{dir.string() + ": not a directory of drop-in configs (*.toml)"};
  }
  std::vector<std::string> files;
  for (std::filesystem::directory_iterator it(dir, error), end; !error && it != end;
       it.increment(error)) {
    if (it->path().extension() == ".toml") files.push_back(it->path().string());
  }
  if (error) return Error{dir.string() + ": " + error.message()};
  std::sort(files.begin(), files.end());
  return files;
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
  Config c = Defaults();
  if (Status s = c.ApplyFile(file); !s.ok()) return s.error();
  Result<std::vector<std::string>> drop_ins = DropIns(path);
  if (!drop_ins.ok()) return drop_ins.error();
  for (const std::string& drop_in : *drop_ins) {
    if (Status s = c.ApplyFile(drop_in); !s.ok()) return s.error();
  }
  if (Status s = c.Check(); !s.ok()) return Error{file + ": " + s.error().message};
  return c;
}

Status Config::ApplyFile(const std::string& file) {
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
      values_[name] = std::move(v).value();
    }
  }
  return OkStatus();
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

template <typename T>
const T& Config::Typed(std::string_view name) const {
  const auto* v = std::get_if<T>(&Get(name));
  if (v == nullptr) UnknownOptionBug(name);
  return *v;
}

int64_t Config::Int(std::string_view name) const { return Typed<int64_t>(name); }
double Config::Float(std::string_view name) const { return Typed<double>(name); }
bool Config::Bool(std::string_view name) const { return Typed<bool>(name); }
const std::string& Config::String(std::string_view name) const {
  return Typed<std::string>(name);
}
const std::vector<int64_t>& Config::IntList(std::string_view name) const {
  return Typed<std::vector<int64_t>>(name);
}
const std::vector<double>& Config::FloatList(std::string_view name) const {
  return Typed<std::vector<double>>(name);
}
const std::vector<std::string>& Config::StringList(std::string_view name) const {
  return Typed<std::vector<std::string>>(name);
}

Status Config::Check() const {
  for (const OptionSpec& spec : Options()) {
    const std::string name(spec.name);
    const size_t n = ListSize(Get(spec.name));
    if (!spec.parallel_to.empty() && n != 0) {
      const size_t want = ListSize(Get(spec.parallel_to));
      if (n != want) {
        return Error{"option " + name + " has " + std::to_string(n) + " entr" +
                     (n == 1 ? "y" : "ies") + " and " + std::string(spec.parallel_to) + " " +
                     std::to_string(want) + ": give one per " + std::string(spec.parallel_to) +
                     " entry, or none for the defaults"};
      }
    }
    if (!spec.distinct) continue;
    std::set<std::string_view> seen;
    for (const std::string& entry : StringList(spec.name)) {
      if (!entry.empty() && !seen.insert(entry).second) {
        return Error{"option " + name + " names '" + entry + "' twice: its entries must differ"};
      }
    }
  }
  return OkStatus();
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
    out += std::string(name.substr(dot + 1)) + " = " + TomlText(Get(name)) + "\n";
  }
  return out;
}

}  // namespace earshot::config
