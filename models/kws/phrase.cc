#include "models/kws/phrase.h"

#include <cstdio>

namespace earshot::kws {
namespace {

std::string CodePointName(int32_t c) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(c));
  return buf;
}

bool IsControl(int32_t c) {
  return c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0x2028 || c == 0x2029;
}

// Unicode's noncharacters: U+FDD0..U+FDEF and the last two code points of every plane.
bool IsNoncharacter(int32_t c) { return (c >= 0xFDD0 && c <= 0xFDEF) || (c & 0xFFFE) == 0xFFFE; }

}  // namespace

std::string PhraseProblem(std::span<const int32_t> code_points) {
  if (code_points.empty()) return "it is empty";
  if (code_points.size() > kMaxPhraseCodePoints) {
    return std::to_string(code_points.size()) + " characters, more than " +
           std::to_string(kMaxPhraseCodePoints);
  }
  for (const int32_t c : code_points) {
    if (c < 0 || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
      return "character " + std::to_string(c) + " is no Unicode scalar value";
    }
    if (IsControl(c)) return "a control character (" + CodePointName(c) + ")";
    if (IsNoncharacter(c)) return "a noncharacter (" + CodePointName(c) + ")";
  }
  if (code_points.front() == ' ' || code_points.back() == ' ') return "a space first or last";
  return "";
}

std::string EncodeUtf8(std::span<const int32_t> code_points) {
  std::string out;
  for (const int32_t signed_c : code_points) {
    const auto c = static_cast<uint32_t>(signed_c);
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

std::optional<std::vector<int32_t>> DecodeUtf8(std::string_view text) {
  std::vector<int32_t> out;
  for (size_t i = 0; i < text.size();) {
    const auto lead = static_cast<uint8_t>(text[i]);
    // The sequence's length and the smallest code point it may encode (shorter forms are invalid).
    size_t n = 0;  // 0x80..0xBF continue a sequence; 0xF8.. start none
    if (lead < 0x80) {
      n = 1;
    } else if (lead >= 0xC0 && lead < 0xE0) {
      n = 2;
    } else if (lead >= 0xE0 && lead < 0xF0) {
      n = 3;
    } else if (lead >= 0xF0 && lead < 0xF8) {
      n = 4;
    }
    if (n == 0 || i + n > text.size()) return std::nullopt;
    int32_t c = n == 1 ? lead : lead & (0x7F >> n);
    for (size_t k = 1; k < n; ++k) {
      const auto next = static_cast<uint8_t>(text[i + k]);
      if ((next & 0xC0) != 0x80) return std::nullopt;
      c = (c << 6) | (next & 0x3F);
    }
    constexpr int32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < kSmallest[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return std::nullopt;
    out.push_back(c);
    i += n;
  }
  return out;
}

}  // namespace earshot::kws
