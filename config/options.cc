#include "config/options.h"

#include <array>

namespace earshot::config {
namespace {

using T = OptionType;

constexpr std::array kOptions = {
    OptionSpec{"audio.preroll_ms", T::kInt, "1500", 0, 10000, "", "ms",
               "Past audio kept in the ring buffer for later stages (the keyword spotter looks back "
               "into it when the VAD fires)"},
    OptionSpec{"audio.resampler_quality", T::kString, "high", 0, 0, "quick|low|medium|high|very_high",
               "", "libsoxr recipe used when a source is not 16 kHz (high: 20-bit precision)"},
    OptionSpec{"audio.read_chunk_ms", T::kInt, "100", 10, 10000, "", "ms",
               "Audio decoded per read from a file or device; memory use is bounded by it"},
};

}  // namespace

std::span<const OptionSpec> Options() { return kOptions; }

const OptionSpec* FindOption(std::string_view name) {
  for (const OptionSpec& spec : kOptions) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

std::string_view TypeName(OptionType type) {
  switch (type) {
    case T::kInt: return "integer";
    case T::kFloat: return "number";
    case T::kBool: return "boolean";
    case T::kString: return "string";
  }
  return "?";
}

}  // namespace earshot::config
