#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace earshot::stt {

// 10 ms at 16 kHz: the hops in which an utterance's voice is told from its pauses.
inline constexpr size_t kVoicedHop = 160;
inline constexpr int kVoicedHopMs = static_cast<int>(kVoicedHop * 1000 / 16000);

// Per hop of `samples` (the last one may be short), the sum of squares: only ratios are used.
std::vector<int64_t> HopPowers(std::span<const int16_t> samples);

// Per hop, whether it is voiced: louder than the middle, in dB, of the quietest tenth of the
// hops and the loudest, and within 40 dB of the loudest. Relative to the utterance's own levels,
// so steady noise under a command stays unvoiced. Empty for no samples.
std::vector<bool> VoicedHops(std::span<const int16_t> samples);

}  // namespace earshot::stt
