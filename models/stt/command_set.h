// Command sets: what an app's users may say, as intents with sentence templates and slots, in the
// text format of docs/commands.md (one file or one RegisterCommands text = one set):
//
//   set lights                                   # optional: the set's name
//   slot device = kitchen light | lamp | fan     # a value list (spoken[:value] | ...)
//   intent light                                 # an intent, its templates indented below
//     (turn | switch) (on | off){state} [the] {device}
//
// A template is words, (a | b) alternatives, [optional] parts, {slot} references to a value list,
// and (...){name} / [...]{name}: the words said there are slot `name`'s value (a slot said twice
// holds both values, in order, separated by a space). ParseCommandSet
// reads the text into a tree; command_grammar.h compiles every set to one grammar and matches a
// decoded sentence back to its set, intent and slots. Errors name the source, the line and the
// word or character that is wrong.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace earshot::stt {

// A template's parse tree. kWord: `word`; kSequence/kAlternatives: `children`; kOptional: its one
// child (a sequence) may be skipped; kSlotList: {slot}, the set's value list named `slot`. A
// sequence, alternatives or optional part with a non-empty `slot` captures the words said in it.
struct TemplateNode {
  enum class Kind { kWord, kSequence, kAlternatives, kOptional, kSlotList };
  Kind kind = Kind::kSequence;
  std::string word;  // kWord
  std::string slot;  // kSlotList: the list; others: the slot the words said here fill (or empty)
  std::vector<TemplateNode> children;
  int line = 0;  // where it was written
};

struct SlotValue {
  std::vector<std::string> spoken;  // the words said
  std::string value;                // what the slot reports ("5" for "five"; else the words)
};

struct SlotList {
  std::string name;
  std::vector<SlotValue> values;
  int line = 0;
};

struct Intent {
  std::string name;
  std::vector<TemplateNode> templates;  // each a kSequence
  int line = 0;
};

struct CommandSet {
  std::string name;
  std::string source;  // the file (or "RegisterCommands NAME") errors name
  std::vector<Intent> intents;
  std::map<std::string, SlotList> slots;
  size_t grammar_words = 0;  // words written in its templates and slot values: its grammar's size
};

// What one set may hold (docs/commands.md, "Limits"): far above what people type, and low enough
// that a set costs little to compile and to match (a 1 MiB template of 350k words took 2 GB and
// minutes; a template nested 10,000 deep overflowed the parser's stack: issue 78). Each is
// checked as the set is parsed, before anything compiles, and its error names the line.
inline constexpr size_t kMaxNameBytes = 64;          // a set's, an intent's, a slot's name
inline constexpr int kMaxTemplateDepth = 16;         // (...) and [...] nested in one template
inline constexpr size_t kMaxSentenceWords = 64;      // the longest sentence a template says
inline constexpr uint64_t kMaxTemplateSentences = 100000;  // sentences one template says
inline constexpr size_t kMaxSetTemplates = 10000;    // templates in a set
inline constexpr size_t kMaxSetGrammarWords = 20000;  // words in a set's templates and slots

// Ok, or why `name` is not a set, intent or slot name: 1 to kMaxNameBytes letters, digits, '_' and
// '-' (a long name is cut in the message).
Status CheckName(std::string_view name, std::string_view what);

// A set's name (`set NAME` overrides it) and text; `source` prefixes every error ("lights.commands:
// 4: ..."). Words are lower-cased; a name is letters, digits, '_' and '-'.
Result<CommandSet> ParseCommandSet(const std::string& name, std::string_view text,
                                   const std::string& source);

// A .commands file: its name without the directory and extension names the set.
Result<CommandSet> ReadCommandSetFile(const std::string& path);

// Every word a set can say, each with the source:line of its first use (for errors).
std::map<std::string, std::string> CommandSetWords(const CommandSet& set);

}  // namespace earshot::stt
