#include "models/stt/command_grammar.h"

#include <functional>

namespace earshot::stt {
namespace {

using Kind = TemplateNode::Kind;
using Slots = std::map<std::string, std::string>;
// Called with where a node's match ended and the slots so far; true stops the search.
using Next = std::function<bool(size_t, const Slots&)>;

std::string SlotRule(size_t set, const std::string& slot) {
  return "<s" + std::to_string(set) + "_slot_" + slot + ">";
}

std::string Spoken(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

std::string NodeJsgf(const TemplateNode& node, size_t set) {
  std::string out;
  const bool group = node.kind == Kind::kSequence || node.kind == Kind::kAlternatives;
  if (group && node.children.size() == 1) return NodeJsgf(node.children[0], set);
  switch (node.kind) {
    case Kind::kWord:
      return node.word;
    case Kind::kSlotList:
      return SlotRule(set, node.slot);
    case Kind::kOptional:
      return "[ " + NodeJsgf(node.children[0], set) + " ]";
    case Kind::kSequence:
      for (const TemplateNode& c : node.children) out += (out.empty() ? "" : " ") + NodeJsgf(c, set);
      return "( " + out + " )";
    case Kind::kAlternatives:
      for (const TemplateNode& c : node.children) out += (out.empty() ? "" : " | ") + NodeJsgf(c, set);
      return "( " + out + " )";
  }
  return out;
}

// A slot said more than once holds each value, in order, separated by spaces ("1 2 3").
void Fill(Slots& slots, const std::string& slot, const std::string& value) {
  std::string& held = slots[slot];
  held += (held.empty() ? "" : " ") + value;
}

// Matches `node` against words[pos...], calling `next` with each way it can end (continuation
// passing: a sequence tries its items' matches one after another, backtracking on failure).
class Matcher {
 public:
  Matcher(const std::vector<std::string>& words, const CommandSet& set) : words_(words), set_(set) {}

  bool Node(const TemplateNode& node, size_t pos, const Slots& slots, const Next& next) const {
    if (node.slot.empty() || node.kind == Kind::kSlotList) return Inner(node, pos, slots, next);
    // A tagged group: its slot is the words said inside it.
    return Inner(node, pos, slots, [&](size_t end, const Slots& inner) {
      Slots with = inner;
      Fill(with, node.slot,
           Spoken({words_.begin() + static_cast<long>(pos), words_.begin() + static_cast<long>(end)}));
      return next(end, with);
    });
  }

 private:
  bool Inner(const TemplateNode& node, size_t pos, const Slots& slots, const Next& next) const {
    switch (node.kind) {
      case Kind::kWord:
        return pos < words_.size() && words_[pos] == node.word && next(pos + 1, slots);
      case Kind::kOptional:
        return Node(node.children[0], pos, slots, next) || next(pos, slots);
      case Kind::kAlternatives:
        for (const TemplateNode& c : node.children) {
          if (Node(c, pos, slots, next)) return true;
        }
        return false;
      case Kind::kSequence:
        return Sequence(node, 0, pos, slots, next);
      case Kind::kSlotList:
        return SlotList(set_.slots.at(node.slot), pos, slots, next);
    }
    return false;
  }

  bool Sequence(const TemplateNode& seq, size_t item, size_t pos, const Slots& slots,
                const Next& next) const {
    if (item == seq.children.size()) return next(pos, slots);
    return Node(seq.children[item], pos, slots, [&](size_t end, const Slots& after) {
      return Sequence(seq, item + 1, end, after, next);
    });
  }

  bool SlotList(const stt::SlotList& list, size_t pos, const Slots& slots,
                const Next& next) const {
    for (const SlotValue& v : list.values) {
      if (pos + v.spoken.size() > words_.size()) continue;
      if (!std::equal(v.spoken.begin(), v.spoken.end(),
                      words_.begin() + static_cast<long>(pos))) {
        continue;
      }
      Slots with = slots;
      Fill(with, list.name, v.value);
      if (next(pos + v.spoken.size(), with)) return true;
    }
    return false;
  }

  const std::vector<std::string>& words_;
  const CommandSet& set_;
};

// The sentences a node says, each as its words; false once there would be over `limit`.
bool Expand(const TemplateNode& node, const CommandSet& set, size_t limit,
            std::vector<std::vector<std::string>>& out) {
  std::vector<std::vector<std::string>> result;
  switch (node.kind) {
    case Kind::kWord:
      result.push_back({node.word});
      break;
    case Kind::kSlotList:
      for (const SlotValue& v : set.slots.at(node.slot).values) result.push_back(v.spoken);
      break;
    case Kind::kOptional:
      result.push_back({});
      if (!Expand(node.children[0], set, limit, result)) return false;
      break;
    case Kind::kAlternatives:
      for (const TemplateNode& c : node.children) {
        if (!Expand(c, set, limit, result)) return false;
      }
      break;
    case Kind::kSequence:
      result.push_back({});
      for (const TemplateNode& c : node.children) {
        std::vector<std::vector<std::string>> tails, joined;
        if (!Expand(c, set, limit, tails)) return false;
        for (const auto& head : result) {
          for (const auto& tail : tails) {
            joined.push_back(head);
            joined.back().insert(joined.back().end(), tail.begin(), tail.end());
            if (joined.size() > limit) return false;
          }
        }
        result = std::move(joined);
      }
      break;
  }
  out.insert(out.end(), result.begin(), result.end());
  return out.size() <= limit;
}

}  // namespace

std::string CommandGrammar::Jsgf(const std::vector<std::string>& garbage) const {
  std::string command, rules;
  for (size_t s = 0; s < sets_.size(); ++s) {
    for (size_t i = 0; i < sets_[s].intents.size(); ++i) {
      const std::string rule = "<s" + std::to_string(s) + "_i" + std::to_string(i) + ">";
      std::string templates;
      for (const TemplateNode& t : sets_[s].intents[i].templates) {
        templates += (templates.empty() ? "" : " | ") + NodeJsgf(t, s);
      }
      rules += rule + " = " + templates + " ;\n";
      command += (command.empty() ? "" : " | ") + rule;
    }
    for (const auto& [name, list] : sets_[s].slots) {
      std::string values;
      for (const SlotValue& v : list.values) {
        values += (values.empty() ? "( " : " | ( ") + Spoken(v.spoken) + " )";
      }
      rules += SlotRule(s, name) + " = " + values + " ;\n";
    }
  }
  std::string top = "public <command> = " + command + " ;\n";
  if (!garbage.empty()) {
    std::string words;
    for (const std::string& w : garbage) words += (words.empty() ? "" : " | ") + w;
    // One phone, then any more: written so, the loop explains fewer short commands than as
    // "( ... )+" at the same word cost (docs/research/stt.md, "The phone loop's form").
    top = "public <utterance> = <command> | <garbage> ;\n<command> = " + command + " ;\n" +
          "<garbage> = <phone> <phone>* ;\n<phone> = " + words + " ;\n";
  }
  return "#JSGF V1.0;\ngrammar commands;\n" + top + rules;
}

std::map<std::string, std::string> CommandGrammar::Words() const {
  std::map<std::string, std::string> words;
  for (const CommandSet& set : sets_) words.merge(CommandSetWords(set));
  return words;
}

std::optional<CommandMatch> CommandGrammar::Match(std::string_view sentence) const {
  std::vector<std::string> words;
  for (size_t i = 0; i < sentence.size();) {
    const size_t space = std::min(sentence.find(' ', i), sentence.size());
    if (space > i) words.emplace_back(sentence.substr(i, space - i));
    i = space + 1;
  }
  for (const CommandSet& set : sets_) {
    const Matcher matcher(words, set);
    for (const Intent& intent : set.intents) {
      for (const TemplateNode& t : intent.templates) {
        std::optional<CommandMatch> found;
        matcher.Node(t, 0, {}, [&](size_t end, const Slots& slots) {
          if (end != words.size()) return false;
          found = CommandMatch{set.name, intent.name, slots};
          return true;
        });
        if (found) return found;
      }
    }
  }
  return std::nullopt;
}

std::vector<std::string> CommandGrammar::OneWordSentences(size_t limit) const {
  std::vector<std::vector<std::string>> sentences;
  for (const CommandSet& set : sets_) {
    for (const Intent& intent : set.intents) {
      for (const TemplateNode& t : intent.templates) {
        if (!Expand(t, set, limit, sentences)) return {};
      }
    }
  }
  std::vector<std::string> out;
  for (const auto& s : sentences) {
    if (s.size() != 1) return {};
    out.push_back(s[0]);
  }
  return out;
}

}  // namespace earshot::stt
