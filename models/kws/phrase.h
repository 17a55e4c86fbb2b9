// The text rules of a keyword's phrase (a model file's `kws_phrase`) and name (kws.names): what a
// wake event's JSON, a D-Bus string and `earshot kws`'s tab-separated lines can carry as they are.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace earshot::kws {

inline constexpr size_t kMaxPhraseCodePoints = 64;

// Empty if `code_points` is a phrase: 1 to 64 Unicode scalar values, none a control character
// (C0, DEL, C1, U+2028/2029) or a noncharacter, no space first or last; else the cause.
std::string PhraseProblem(std::span<const int32_t> code_points);

// UTF-8 of valid code points (PhraseProblem's), and back: nullopt for bytes that are not UTF-8.
std::string EncodeUtf8(std::span<const int32_t> code_points);
std::optional<std::vector<int32_t>> DecodeUtf8(std::string_view text);

}  // namespace earshot::kws
