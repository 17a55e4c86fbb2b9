#include "models/stt/voiced_hops.h"

#include <algorithm>
#include <cmath>

namespace earshot::stt {

std::vector<int64_t> HopPowers(std::span<const int16_t> samples) {
  std::vector<int64_t> power((samples.size() + kVoicedHop - 1) / kVoicedHop, 0);
  for (size_t i = 0; i < samples.size(); ++i) {
    power[i / kVoicedHop] += int64_t{samples[i]} * samples[i];
  }
  return power;
}

std::vector<bool> VoicedHops(std::span<const int16_t> samples) {
  const std::vector<int64_t> power = HopPowers(samples);
  if (power.empty()) return {};
  std::vector<int64_t> sorted = power;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<long>(sorted.size() / 10),
                   sorted.end());
  const double quiet = static_cast<double>(sorted[sorted.size() / 10]);
  const double loudest = static_cast<double>(*std::max_element(power.begin(), power.end()));
  const double threshold = std::max(std::sqrt(std::max(quiet, 1.0) * loudest), loudest / 1e4);
  std::vector<bool> voiced(power.size());
  for (size_t h = 0; h < power.size(); ++h) voiced[h] = static_cast<double>(power[h]) > threshold;
  return voiced;
}

}  // namespace earshot::stt
