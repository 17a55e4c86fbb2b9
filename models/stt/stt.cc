#include "models/stt/stt.h"

#include <algorithm>
#include <filesystem>

namespace earshot::stt {
namespace {

// A directory's *.commands files, in name order.
Result<std::vector<std::string>> CommandFiles(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    if (entry.path().extension() == ".commands") files.push_back(entry.path().string());
  }
  if (error) return Error{dir + ": " + error.message()};
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

Result<std::vector<CommandSet>> ReadCommandSets(const std::vector<std::string>& paths) {
  std::vector<CommandSet> sets;
  for (const std::string& path : paths) {
    std::vector<std::string> files = {path};
    if (std::filesystem::is_directory(path)) {
      Result<std::vector<std::string>> listed = CommandFiles(path);
      if (!listed.ok()) return listed.error();
      files = std::move(listed).value();
    }
    for (const std::string& file : files) {
      Result<CommandSet> set = ReadCommandSetFile(file);
      if (!set.ok()) return set.error();
      for (const CommandSet& other : sets) {
        if (other.name == set->name) {
          return Error{file + ": set " + set->name + " is already defined by " + other.source};
        }
      }
      sets.push_back(std::move(set).value());
    }
  }
  return sets;
}

std::vector<std::string> SplitWords(const std::string& words) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= words.size()) {
    const size_t bar = std::min(words.find('|', start), words.size());
    out.push_back(words.substr(start, bar - start));
    start = bar + 1;
  }
  return out;
}

std::string JoinWords(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : "|") + w;
  return out;
}

Status SttConfig::Validate() const {
  if (!grammar.empty() && !words.empty()) {
    return Error{"stt.grammar and stt.words are exclusive: set one"};
  }
  if (!command_sets.empty() && (!grammar.empty() || !words.empty())) {
    return Error{"stt.commands and stt.grammar or stt.words are exclusive: set one"};
  }
  return OkStatus();
}

}  // namespace earshot::stt
