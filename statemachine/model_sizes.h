// The sizes of the models a profile runs (model_library.h loads them; the governor's profiles
// name them, governor/governor.h). Keyword models: large = every keyword's kws.models file,
// small = its kws.small_models file. STT: stt.profile large|small, or off (no decoding).
#pragma once

#include <array>
#include <string_view>

namespace earshot::statemachine {

enum class KwsSize { kLarge, kSmall };
enum class SttSize { kLarge, kSmall, kOff };
// Their names, by value: the options' (governor.*_kws, governor.*_stt) and the events'.
inline constexpr std::array<std::string_view, 2> kKwsSizeNames = {"large", "small"};
inline constexpr std::array<std::string_view, 3> kSttSizeNames = {"large", "small", "off"};
inline std::string_view KwsSizeName(KwsSize size) { return kKwsSizeNames[static_cast<int>(size)]; }
inline std::string_view SttSizeName(SttSize size) { return kSttSizeNames[static_cast<int>(size)]; }

struct ProfileModels {
  KwsSize kws = KwsSize::kLarge;
  SttSize stt = SttSize::kLarge;
  bool operator==(const ProfileModels&) const = default;
};

}  // namespace earshot::statemachine
