// Config: the effective value of every option of config/options.h, from the defaults, a TOML file
// and `--set` overrides, in that order. Unknown keys, wrong types and out-of-range values are
// errors that name the key (and the file) and the allowed range; so are parallel lists of other
// lengths and a distinct list's repeated entries, once every source is read (Check).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "config/option_value.h"

namespace earshot::config {

class Config {
 public:
  // Every option at its default.
  static Config Defaults();
  // Defaults, then the keys of a TOML file (tables are sections: [audio] preroll_ms = 1500), then
  // those of its drop-ins, FILE.d/*.toml in name order (local changes beside a packaged file),
  // checked as a whole (Check). Errors name the file.
  static Result<Config> FromFile(const std::filesystem::path& path);
  // FromFile, or the defaults when no file is named (an empty path: no --config).
  static Result<Config> FromFileOrDefaults(const std::filesystem::path& path);

  // Applies one "section.key=value" override (the argument of --set).
  Status SetAssignment(std::string_view assignment);
  // Sets one option from its text form, checking type and range.
  Status Set(std::string_view name, std::string_view text);
  // What one option alone cannot say: each parallel list has as many entries as its list, or none;
  // a distinct list repeats no entry but ''. For after a series of Set calls (FromFile checks).
  Status Check() const;

  // Typed getters. `name` must be in the options table with that type (a bug otherwise: aborts).
  int64_t Int(std::string_view name) const;
  double Float(std::string_view name) const;
  bool Bool(std::string_view name) const;
  const std::string& String(std::string_view name) const;
  const std::vector<int64_t>& IntList(std::string_view name) const;
  const std::vector<double>& FloatList(std::string_view name) const;
  const std::vector<std::string>& StringList(std::string_view name) const;

  // The effective configuration as a commented TOML file that FromFile reads back unchanged.
  std::string ToToml() const;

 private:
  // The keys of one TOML file over the values so far, each checked alone.
  Status ApplyFile(const std::string& file);
  const Value& Get(std::string_view name) const;
  template <typename T>
  const T& Typed(std::string_view name) const;
  std::map<std::string, Value, std::less<>> values_;
};

}  // namespace earshot::config
