#include "models/pocketsphinx/jsgf_check.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <string>

#include "base/read_file.h"

namespace earshot::pocketsphinx {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// Reads a grammar's text, counting lines.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}
  bool done() const { return at_ >= text_.size(); }
  bool StartsWith(std::string_view s) const { return text_.substr(at_).starts_with(s); }
  std::string_view rest() const { return text_.substr(at_); }
  int line() const { return line_; }
  void Advance(size_t n) {
    n = std::min(n, text_.size() - at_);
    line_ += static_cast<int>(std::count(text_.begin() + at_, text_.begin() + at_ + n, '\n'));
    at_ += n;
  }
  // Moves past `end` if it is ahead; false (at the end of the text) if not.
  bool SkipPast(std::string_view end) {
    const size_t found = text_.find(end, at_);
    Advance(found == std::string_view::npos ? text_.size() : found - at_ + end.size());
    return found != std::string_view::npos;
  }

 private:
  std::string_view text_;
  size_t at_ = 0;
  int line_ = 1;
};

Error AtLine(int line, const std::string& cause) {
  return Error{"line " + std::to_string(line) + ": " + cause};
}

// Whitespace and comments; the lexer ends a // comment with its line break.
Status SkipBlanks(Cursor& c) {
  while (!c.done()) {
    if (IsSpace(c.rest()[0])) {
      c.Advance(1);
    } else if (c.StartsWith("//")) {
      const int line = c.line();
      if (!c.SkipPast("\n")) return AtLine(line, "a // comment at the end needs a line break");
    } else if (c.StartsWith("/*")) {
      const int line = c.line();
      if (!c.SkipPast("*/")) return AtLine(line, "comment not closed by */");
    } else {
      break;
    }
  }
  return OkStatus();
}

// The length of the text before the ';' that ends the statement, past quoted tokens, {tags} and
// comments; npos if none does.
size_t StatementLength(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == ';') return i;
    const char close = c == '"' ? '"' : c == '{' ? '}' : '\0';
    if (close != '\0') {
      for (++i; i < s.size() && s[i] != close; ++i) i += s[i] == '\\';
    } else if (s.substr(i).starts_with("/*")) {
      i = std::min(s.find("*/", i + 2), s.size()) + 1;
    } else if (s.substr(i).starts_with("//")) {
      i = std::min(s.find('\n', i), s.size());
    }
  }
  return std::string_view::npos;
}

bool IsRule(std::string_view s) {
  if (s.starts_with("public")) {
    s.remove_prefix(6);
    while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  }
  const size_t close = s.find('>');
  if (!s.starts_with('<') || close == std::string_view::npos || close == 1) return false;
  const std::string_view name = s.substr(1, close - 1);
  if (std::any_of(name.begin(), name.end(), [](char c) { return IsSpace(c) || c == '<'; })) {
    return false;
  }
  s.remove_prefix(close + 1);
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  return s.starts_with('=');
}

bool IsDeclaration(std::string_view s, std::string_view keyword) {
  return s.starts_with(keyword) && s.size() > keyword.size() && IsSpace(s[keyword.size()]);
}

// Calls `on_statement(text, line, first)` for each statement, without its ';', and stops at the
// first error it returns; then a statement not ended by ';' or an empty grammar is an error.
Status ForEachStatement(std::string_view text,
                        const std::function<Status(std::string_view, int, bool)>& on_statement) {
  Cursor c(text);
  bool first = true;
  for (;;) {
    if (Status blanks = SkipBlanks(c); !blanks.ok()) return blanks;
    if (c.done()) break;
    const int line = c.line();
    const size_t length = StatementLength(c.rest());
    if (Status s = on_statement(c.rest().substr(0, length), line, first); !s.ok()) return s;
    if (length == std::string_view::npos) return AtLine(line, "statement not ended by ';'");
    c.Advance(length + 1);
    first = false;
  }
  if (first) return Error{"no JSGF header, no rules: an empty grammar"};
  return OkStatus();
}

std::string_view Trimmed(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

bool IsPlainWord(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '\'' || c == '_' || c == '-' ||
           c == '.';
  });
}

// "yes | no | up" or "( yes | no | up )": the words; nothing for anything else.
std::optional<std::vector<std::string>> Alternatives(std::string_view body) {
  body = Trimmed(body);
  if (body.starts_with('(') && body.ends_with(')')) body = Trimmed(body.substr(1, body.size() - 2));
  std::vector<std::string> words;
  for (;;) {
    const size_t bar = body.find('|');
    const std::string_view word = Trimmed(body.substr(0, bar));
    if (!IsPlainWord(word)) return std::nullopt;
    words.emplace_back(word);
    if (bar == std::string_view::npos) return words;
    body.remove_prefix(bar + 1);
  }
}

}  // namespace

Result<std::string> ReadGrammarFile(const std::string& path) {
  return ReadWholeFile(path, size_t{16} << 20, "a grammar");
}

Status CheckJsgfStatements(std::string_view text) {
  return ForEachStatement(text, [](std::string_view s, int line, bool first) -> Status {
    const bool ok = first ? s.starts_with("#JSGF")
                          : IsDeclaration(s, "grammar") || IsDeclaration(s, "import") || IsRule(s);
    if (ok) return OkStatus();
    const std::string shown(s.substr(0, std::min(s.find('\n'), size_t{40})));
    return AtLine(
        line, first ? "expected the header '#JSGF V1.0;', found '" + shown + "'"
                    : "expected a rule '<name> = ...;' or a declaration, found '" + shown + "'");
  });
}

std::optional<std::vector<std::string>> JsgfWordList(std::string_view text) {
  std::vector<std::string_view> rules;
  const Status statements = ForEachStatement(text, [&](std::string_view s, int, bool first) {
    if (!first && IsRule(s)) rules.push_back(s);
    return OkStatus();
  });
  if (!statements.ok() || rules.size() != 1 || !rules[0].starts_with("public")) return std::nullopt;
  return Alternatives(rules[0].substr(rules[0].find('=') + 1));
}

}  // namespace earshot::pocketsphinx
