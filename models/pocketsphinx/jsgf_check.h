// A JSGF grammar's statements, checked before pocketsphinx reads them. Its lexer copies to stdout
// (where `earshot transcribe` and `earshotd --events -` write) whatever it cannot place between
// statements, and then accepts the grammar without it: `<d = up;` or a stray word vanish into
// the output. The check finds such text and names its line; what is inside a rule is left to
// pocketsphinx's parser, which fails with an error of its own.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace earshot::pocketsphinx {

// Each statement (after the whitespace and comments between them) must be the `#JSGF` header,
// `grammar NAME;`, `import <NAME>;` or a rule `[public] <NAME> = ...;`, and end in ';'.
Status CheckJsgfStatements(std::string_view text);

// A grammar file's text (ReadWholeFile, bounded at 16 MB): its errors name the file.
Result<std::string> ReadGrammarFile(const std::string& path);

// The words of a grammar whose one rule is public and says one of them ("yes | no | up", in
// parentheses or not), in its order; nothing for any other grammar (several rules, sequences,
// optional or repeated parts, weights, tags, references to rules).
std::optional<std::vector<std::string>> JsgfWordList(std::string_view text);

}  // namespace earshot::pocketsphinx
