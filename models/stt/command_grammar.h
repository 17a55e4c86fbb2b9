// Every registered command set as one grammar: the JSGF text pocketsphinx decodes with (each set's
// intents and templates as alternatives of one public rule, slot lists as rules), and the way back
// from a decoded sentence to the set, intent and slot values that say it (the first set, intent
// and template, in their order, that match the whole sentence). Immutable once built.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/stt/command_set.h"

namespace earshot::stt {

struct CommandMatch {
  std::string set;
  std::string intent;
  std::map<std::string, std::string> slots;
};

class CommandGrammar {
 public:
  explicit CommandGrammar(std::vector<CommandSet> sets) : sets_(std::move(sets)) {}

  const std::vector<CommandSet>& sets() const { return sets_; }
  // With `garbage` words, the public rule is a command or any sequence of those words (the
  // out-of-grammar path), never the two joined.
  std::string Jsgf(const std::vector<std::string>& garbage = {}) const;
  // Every word of every set, with where it was first used (source:line).
  std::map<std::string, std::string> Words() const;
  // The set, intent and slots of a sentence the grammar says (words separated by spaces).
  std::optional<CommandMatch> Match(std::string_view sentence) const;
  // The sentences when every one of them is a single word (the ten command words as one set);
  // empty otherwise, or when there would be over `limit` of them.
  std::vector<std::string> OneWordSentences(size_t limit = 1000) const;

 private:
  std::vector<CommandSet> sets_;
};

}  // namespace earshot::stt
