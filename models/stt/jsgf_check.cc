#include "models/stt/jsgf_check.h"

#include <algorithm>
#include <string>

namespace earshot::stt {
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

}  // namespace

Status CheckJsgfStatements(std::string_view text) {
  Cursor c(text);
  bool first = true;
  for (;;) {
    if (Status blanks = SkipBlanks(c); !blanks.ok()) return blanks;
    if (c.done()) break;
    const int line = c.line();
    const size_t length = StatementLength(c.rest());
    const std::string_view s = c.rest().substr(0, length);
    const bool ok = first ? s.starts_with("#JSGF")
                          : IsDeclaration(s, "grammar") || IsDeclaration(s, "import") || IsRule(s);
    if (!ok) {
      const std::string shown(s.substr(0, std::min(s.find('\n'), size_t{40})));
      return AtLine(
          line, first ? "expected the header '#JSGF V1.0;', found '" + shown + "'"
                      : "expected a rule '<name> = ...;' or a declaration, found '" + shown + "'");
    }
    if (length == std::string_view::npos) return AtLine(line, "statement not ended by ';'");
    c.Advance(length + 1);
    first = false;
  }
  if (first) return Error{"no JSGF header, no rules: an empty grammar"};
  return OkStatus();
}

}  // namespace earshot::stt
