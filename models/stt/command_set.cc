#include "models/stt/command_set.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "base/read_file.h"
#include "base/text.h"

namespace earshot::stt {
namespace {

constexpr size_t kMaxCommandSetBytes = 1 << 20;  // a set is typed by people: 1 MiB is plenty

bool IsWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '\'' || c == '-' || c == '_' ||
         c == '.';
}

bool IsName(std::string_view s) {
  return !s.empty() && s.size() <= kMaxNameBytes && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

// At most the first 64 bytes of `text`, for a message: an error never copies a client's megabyte.
std::string Cut(std::string_view text) {
  return text.size() <= 64 ? std::string(text) : std::string(text.substr(0, 64)) + "...";
}

// "SOURCE:LINE", built only for an error: a line's parse never copies the source.
std::string Where(const std::string& source, int line) {
  return source + ":" + std::to_string(line);
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string> SplitWhitespace(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    size_t j = i;
    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

// One template line, by recursive descent over its characters:
//   alternatives := sequence ('|' sequence)*     sequence := item*
//   item := word | '(' alternatives ')' tag? | '[' alternatives ']' tag? | '{' name '}'
//   tag  := '{' name '}' right after the closing bracket
class TemplateParser {
 public:
  TemplateParser(std::string_view text, const std::string& source, int line)
      : text_(text), source_(source), line_(line) {}

  Result<TemplateNode> Parse() {
    Result<TemplateNode> top = Alternatives();
    if (!top.ok()) return top;
    if (pos_ < text_.size()) return Fail(std::string("unexpected '") + text_[pos_] + "'");
    // A top-level "a | b" is alternatives in a sequence of one.
    TemplateNode seq = Node(TemplateNode::Kind::kSequence);
    if (top->children.size() == 1) return std::move(top->children[0]);
    seq.children.push_back(std::move(top).value());
    return seq;
  }

 private:
  TemplateNode Node(TemplateNode::Kind kind) const {
    TemplateNode n;
    n.kind = kind;
    n.line = line_;
    return n;
  }

  Error Fail(const std::string& what) const {
    return Error{Where(source_, line_) + ": " + what + " at column " + std::to_string(pos_ + 1)};
  }

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  Result<TemplateNode> Alternatives() {
    TemplateNode alts = Node(TemplateNode::Kind::kAlternatives);
    for (;;) {
      Result<TemplateNode> seq = Sequence();
      if (!seq.ok()) return seq;
      if (seq->children.empty()) return Fail("empty alternative");
      alts.children.push_back(std::move(seq).value());
      SkipSpace();
      if (pos_ >= text_.size() || text_[pos_] != '|') return alts;
      ++pos_;
    }
  }

  Result<TemplateNode> Sequence() {
    TemplateNode seq = Node(TemplateNode::Kind::kSequence);
    for (;;) {
      SkipSpace();
      if (pos_ >= text_.size()) return seq;
      const char c = text_[pos_];
      if (c == ')' || c == ']' || c == '|') return seq;
      if (++items_ > kMaxSetGrammarWords) {
        return Fail("over " + std::to_string(kMaxSetGrammarWords) + " words and groups");
      }
      Result<TemplateNode> item = Item();
      if (!item.ok()) return item;
      seq.children.push_back(std::move(item).value());
    }
  }

  Result<std::string> BracedName() {
    const size_t close = text_.find('}', pos_);
    if (close == std::string_view::npos) return Fail("'{' without '}'");
    const std::string_view name = text_.substr(pos_ + 1, close - pos_ - 1);
    if (!IsName(name)) return Fail("'{" + Cut(name) + "}' is not a slot name");
    pos_ = close + 1;
    return std::string(name);
  }

  Result<TemplateNode> Group(char open) {
    const char close = open == '(' ? ')' : ']';
    // The parse recurses per group: its depth is bounded before the stack is.
    if (++depth_ > kMaxTemplateDepth) {
      return Fail("groups nested deeper than " + std::to_string(kMaxTemplateDepth));
    }
    ++pos_;
    Result<TemplateNode> alts = Alternatives();
    --depth_;
    if (!alts.ok()) return alts;
    if (pos_ >= text_.size() || text_[pos_] != close) {
      return Fail(std::string("'") + open + "' without '" + close + "'");
    }
    ++pos_;
    TemplateNode group = std::move(alts).value();
    if (open == '[') {
      TemplateNode optional = Node(TemplateNode::Kind::kOptional);
      optional.children.push_back(std::move(group));
      group = std::move(optional);
    }
    if (pos_ < text_.size() && text_[pos_] == '{') {
      Result<std::string> tag = BracedName();
      if (!tag.ok()) return tag.error();
      group.slot = *tag;
    }
    return group;
  }

  Result<TemplateNode> Item() {
    const char c = text_[pos_];
    if (c == '(' || c == '[') return Group(c);
    if (c == '{') {
      Result<std::string> name = BracedName();
      if (!name.ok()) return name.error();
      TemplateNode ref = Node(TemplateNode::Kind::kSlotList);
      ref.slot = *name;
      return ref;
    }
    const size_t start = pos_;
    while (pos_ < text_.size() && IsWordChar(text_[pos_])) ++pos_;
    if (pos_ == start) return Fail(std::string("unexpected '") + c + "'");
    TemplateNode word = Node(TemplateNode::Kind::kWord);
    word.word = Lower(text_.substr(start, pos_ - start));
    if (word.word[0] == '_') return Fail("'" + word.word + "': a leading '_' is reserved");
    return word;
  }

  std::string_view text_;
  const std::string& source_;
  int line_;
  size_t pos_ = 0;
  int depth_ = 0;     // groups open at pos_
  size_t items_ = 0;  // words and groups parsed
};

// `slot NAME = spoken words[:value] | ...`
Result<SlotList> ParseSlotLine(std::string_view rest, const std::string& source, int line) {
  const std::string where = Where(source, line);  // a slot line is rare: this copy is cheap
  const size_t eq = rest.find('=');
  if (eq == std::string_view::npos) return Error{where + ": expected 'slot NAME = a | b'"};
  SlotList list;
  list.name = std::string(TrimSpace(rest.substr(0, eq)));
  list.line = line;
  if (Status s = CheckName(list.name, "a slot name"); !s.ok()) {
    return Error{where + ": " + s.error().message};
  }
  std::string_view values = rest.substr(eq + 1);
  for (;;) {
    const size_t bar = std::min(values.find('|'), values.size());
    std::string_view item = TrimSpace(values.substr(0, bar));
    SlotValue v;
    const size_t colon = item.find(':');
    v.spoken = SplitWhitespace(Lower(item.substr(0, std::min(colon, item.size()))));
    if (v.spoken.empty()) return Error{where + ": slot " + list.name + ": an empty value"};
    if (v.spoken.size() > kMaxSentenceWords) {
      return Error{where + ": slot " + list.name + ": a value of over " +
                   std::to_string(kMaxSentenceWords) + " words"};
    }
    for (const std::string& w : v.spoken) {
      if (!std::all_of(w.begin(), w.end(), IsWordChar) || w[0] == '_') {
        return Error{where + ": slot " + list.name + ": '" + w + "' is not a word"};
      }
    }
    v.value = colon == std::string_view::npos ? "" : std::string(TrimSpace(item.substr(colon + 1)));
    if (colon == std::string_view::npos) {
      for (const std::string& w : v.spoken) v.value += (v.value.empty() ? "" : " ") + w;
    }
    list.values.push_back(std::move(v));
    if (bar == values.size()) return list;
    values.remove_prefix(bar + 1);
  }
}

// Every {slot} a template names must be a list of the set.
Status CheckSlotRefs(const TemplateNode& node, const CommandSet& set) {
  if (node.kind == TemplateNode::Kind::kSlotList && set.slots.count(node.slot) == 0) {
    return Error{set.source + ":" + std::to_string(node.line) + ": {" + node.slot +
                 "}: no 'slot " + node.slot + " = ...' in the set"};
  }
  for (const TemplateNode& child : node.children) {
    if (Status s = CheckSlotRefs(child, set); !s.ok()) return s;
  }
  return OkStatus();
}

void CollectWords(const TemplateNode& node, const CommandSet& set,
                  std::map<std::string, std::string>& words) {
  if (node.kind == TemplateNode::Kind::kWord) {
    words.emplace(node.word, set.source + ":" + std::to_string(node.line));
  }
  for (const TemplateNode& child : node.children) CollectWords(child, set, words);
}

// One line of the set: `set`, `slot`, `intent` or (indented) a template of the last intent.
Status ParseLine(std::string_view raw, int line, CommandSet& set, std::set<std::string>& intents) {
  const std::string_view text = TrimSpace(raw.substr(0, std::min(raw.find('#'), raw.size())));
  if (text.empty()) return OkStatus();
  const auto where = [&] { return Where(set.source, line); };
  if (std::isspace(static_cast<unsigned char>(raw.front()))) {
    if (set.intents.empty()) return Error{where() + ": a template before any 'intent NAME' line"};
    Result<TemplateNode> t = TemplateParser(text, set.source, line).Parse();
    if (!t.ok()) return t.error();
    set.intents.back().templates.push_back(std::move(t).value());
    return OkStatus();
  }
  const size_t space = std::min(text.find_first_of(" \t"), text.size());
  const std::string_view keyword = text.substr(0, space);
  const std::string_view rest = TrimSpace(text.substr(space));
  if (keyword == "slot") {
    Result<SlotList> list = ParseSlotLine(rest, set.source, line);
    if (!list.ok()) return list.error();
    if (set.slots.count(list->name) != 0) {
      return Error{where() + ": slot " + list->name + " is already defined"};
    }
    set.slots[list->name] = std::move(list).value();
    return OkStatus();
  }
  if (keyword != "intent" && keyword != "set") {
    return Error{where() + ": expected 'set NAME', 'slot NAME = ...', 'intent NAME' or an "
                           "indented template, got '" + Cut(text) + "'"};
  }
  if (Status s = CheckName(rest, keyword == "set" ? "a set name" : "an intent name"); !s.ok()) {
    return Error{where() + ": " + s.error().message};
  }
  if (keyword == "set") {
    if (!set.intents.empty() || !set.slots.empty()) {
      return Error{where() + ": 'set' must come first"};
    }
    set.name = std::string(rest);
    return OkStatus();
  }
  if (!intents.insert(std::string(rest)).second) {
    return Error{where() + ": intent " + std::string(rest) + " is already defined"};
  }
  set.intents.push_back(Intent{std::string(rest), {}, line});
  return OkStatus();
}

// What a template costs: its longest sentence (words), how many sentences it says (at most
// kMaxTemplateSentences + 1: counting stops there) and the words written in it.
struct TemplateCost {
  size_t longest = 0;
  uint64_t sentences = 1;
  size_t words = 0;
};

uint64_t Saturated(uint64_t n) { return std::min<uint64_t>(n, kMaxTemplateSentences + 1); }

TemplateCost CostOf(const TemplateNode& node, const CommandSet& set) {
  using Kind = TemplateNode::Kind;
  if (node.kind == Kind::kWord) return {1, 1, 1};
  if (node.kind == Kind::kSlotList) {
    TemplateCost cost{0, set.slots.at(node.slot).values.size(), 1};
    for (const SlotValue& v : set.slots.at(node.slot).values) {
      cost.longest = std::max(cost.longest, v.spoken.size());
    }
    return cost;
  }
  const bool alternatives = node.kind == Kind::kAlternatives;
  TemplateCost cost{0, alternatives ? 0u : 1u, 0};
  for (const TemplateNode& child : node.children) {
    const TemplateCost c = CostOf(child, set);  // depth bounded by kMaxTemplateDepth
    cost.longest = alternatives ? std::max(cost.longest, c.longest) : cost.longest + c.longest;
    cost.sentences = Saturated(alternatives ? cost.sentences + c.sentences
                                            : cost.sentences * c.sentences);
    cost.words += c.words;
  }
  if (node.kind == Kind::kOptional) cost.sentences = Saturated(cost.sentences + 1);
  return cost;
}

// The set's limits (command_set.h), once every slot it names is known.
Status CheckCosts(CommandSet& set) {
  size_t templates = 0;
  for (const Intent& intent : set.intents) {
    for (const TemplateNode& t : intent.templates) {
      const TemplateCost cost = CostOf(t, set);
      const std::string where = Where(set.source, t.line);
      if (cost.longest > kMaxSentenceWords) {
        return Error{where + ": a sentence of over " + std::to_string(kMaxSentenceWords) +
                     " words"};
      }
      if (cost.sentences > kMaxTemplateSentences) {
        return Error{where + ": says over " + std::to_string(kMaxTemplateSentences) +
                     " sentences"};
      }
      set.grammar_words += cost.words;
      ++templates;
    }
  }
  for (const auto& [name, list] : set.slots) {
    for (const SlotValue& v : list.values) set.grammar_words += v.spoken.size();
  }
  if (templates > kMaxSetTemplates) {
    return Error{set.source + ": over " + std::to_string(kMaxSetTemplates) + " templates"};
  }
  if (set.grammar_words > kMaxSetGrammarWords) {
    return Error{set.source + ": over " + std::to_string(kMaxSetGrammarWords) +
                 " words in its templates and slots"};
  }
  return OkStatus();
}

}  // namespace

Result<CommandSet> ParseCommandSet(const std::string& name, std::string_view text,
                                   const std::string& source) {
  CommandSet set;
  set.name = name;
  set.source = source;
  if (text.size() > kMaxCommandSetBytes) {
    return Error{source + ": over " + std::to_string(kMaxCommandSetBytes) + " bytes"};
  }
  std::set<std::string> intents;
  int line = 0;
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    if (Status s = ParseLine(text.substr(start, end - start), ++line, set, intents); !s.ok()) {
      return s.error();
    }
    start = end + 1;
  }
  if (Status s = CheckName(set.name, "a set name"); !s.ok()) {
    return Error{source + ": " + s.error().message};
  }
  if (set.intents.empty()) return Error{source + ": no intents (an 'intent NAME' line, templates)"};
  for (const Intent& intent : set.intents) {
    if (intent.templates.empty()) {
      return Error{source + ":" + std::to_string(intent.line) + ": intent " + intent.name +
                   " has no templates (indented lines below it)"};
    }
    for (const TemplateNode& t : intent.templates) {
      if (Status s = CheckSlotRefs(t, set); !s.ok()) return s.error();
    }
  }
  if (Status s = CheckCosts(set); !s.ok()) return s.error();
  return set;
}

Status CheckName(std::string_view name, std::string_view what) {
  if (IsName(name)) return OkStatus();
  if (name.size() > kMaxNameBytes) {
    return Error{"'" + Cut(name) + "' is not " + std::string(what) + ": over " +
                 std::to_string(kMaxNameBytes) + " bytes"};
  }
  return Error{"'" + Cut(name) + "' is not " + std::string(what) +
               " (letters, digits, '_' and '-')"};
}

Result<CommandSet> ReadCommandSetFile(const std::string& path) {
  Result<std::string> text = ReadWholeFile(path, kMaxCommandSetBytes, "a command set");
  if (!text.ok()) return text.error();
  std::string name = path.substr(path.find_last_of('/') + 1);
  name = name.substr(0, name.find('.'));
  return ParseCommandSet(name, *text, path);
}

std::map<std::string, std::string> CommandSetWords(const CommandSet& set) {
  std::map<std::string, std::string> words;
  for (const Intent& intent : set.intents) {
    for (const TemplateNode& t : intent.templates) CollectWords(t, set, words);
  }
  for (const auto& [name, list] : set.slots) {
    for (const SlotValue& v : list.values) {
      for (const std::string& w : v.spoken) {
        words.emplace(w, set.source + ":" + std::to_string(list.line));
      }
    }
  }
  return words;
}

}  // namespace earshot::stt
