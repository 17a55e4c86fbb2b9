#include "models/stt/stt.h"

#include <algorithm>
#include <filesystem>

#include "models/stt/command_decoder.h"
#include "models/stt/command_fusion.h"
#include "models/stt/jsgf_check.h"
#include "models/stt/pocketsphinx_backend.h"

namespace earshot::stt {
namespace {

std::vector<std::string> Sorted(std::vector<std::string> words) {
  std::sort(words.begin(), words.end());
  return words;
}

std::string Joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : "|") + w;
  return out;
}

// The one-word vocabulary decoded: stt.words, or the words of a grammar that only says one of
// them (jsgf_check.h); empty for a language model or any other grammar. The grammar was checked
// when the decoder loaded it.
std::string CommandWords(const SttConfig& c) {
  if (!c.command_sets.empty()) return Joined(CommandGrammar(c.command_sets).OneWordSentences());
  if (!c.words.empty() || c.grammar.empty()) return c.words;
  Result<std::string> text = ReadGrammarFile(c.grammar);
  if (!text.ok()) return "";
  std::optional<std::vector<std::string>> words = JsgfWordList(*text);
  return words ? Joined(*words) : "";
}

// The command classifier the config asks for, or nullptr when none applies.
Result<std::shared_ptr<const CommandModel>> CommandClassifier(const SttConfig& c) {
  if (c.command_model == "none") return std::shared_ptr<const CommandModel>();
  const std::string words = CommandWords(c);
  if (words.empty()) {
    if (!c.command_model_named) return std::shared_ptr<const CommandModel>();
    return Error{"stt.command_model '" + c.command_model +
                 "' needs its command words: stt.words, or a grammar of them alone"};
  }
  auto model = CommandModel::Load(c.command_model, c.features);
  if (!model.ok()) return model.error();
  if (Sorted((*model)->words()) == Sorted(SplitWords(words))) return model;
  if (!c.command_model_named) return std::shared_ptr<const CommandModel>();
  return Error{c.command_model + ": its words (" + Joined((*model)->words()) +
               ") are not the decoder's (" + words + ")"};
}

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

Status SttConfig::Validate() const {
  if (!grammar.empty() && !words.empty()) {
    return Error{"stt.grammar and stt.words are exclusive: set one"};
  }
  if (!command_sets.empty() && (!grammar.empty() || !words.empty())) {
    return Error{"stt.commands and stt.grammar or stt.words are exclusive: set one"};
  }
  return OkStatus();
}

Result<std::shared_ptr<const SttModel>> LoadModel(const SttConfig& config) {
  auto model = PocketsphinxModel::Load(config);
  if (!model.ok()) return model.error();
  std::shared_ptr<const SttModel> decoder = std::move(model).value();
  auto classifier = CommandClassifier(config);
  if (!classifier.ok()) return classifier.error();
  if (*classifier != nullptr) {
    decoder = std::make_shared<CommandFusionModel>(decoder, *classifier, config.command_bonus);
  }
  if (config.command_sets.empty()) return decoder;
  std::shared_ptr<const SttModel> open;
  if (config.command_open_transcript) {
    SttConfig open_config = config;
    open_config.command_sets.clear();
    auto open_model = PocketsphinxModel::Load(open_config);
    if (!open_model.ok()) return open_model.error();
    open = std::move(open_model).value();
  }
  return std::shared_ptr<const SttModel>(std::make_shared<CommandSetsModel>(
      decoder, std::make_shared<const CommandGrammar>(config.command_sets), std::move(open)));
}

}  // namespace earshot::stt
