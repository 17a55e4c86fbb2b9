#include "features/noise_suppression.h"

#include <algorithm>
#include <cmath>

#include "features/fixed_point.h"

namespace earshot::features {
namespace {

// A power factor in dB, Q12 (Q8 would make 0.999 read 0.99910: a 10% slower noise estimate).
int32_t DbQ12(double factor) {
  return static_cast<int32_t>(std::lround(10.0 * std::log10(factor) * 4096.0));
}

const int32_t kSmoothPower = DbQ12(0.7), kSmoothPowerIn = DbQ12(0.3);
const int32_t kRise = DbQ12(0.999), kRiseIn = DbQ12(0.001);  // an envelope under its input
const int32_t kFall = DbQ12(0.5), kFallIn = DbQ12(0.5);      // an envelope over its input
const int32_t kPeakDecay = DbQ12(0.85), kMasked = DbQ12(0.15);
const int32_t kMaxGain = DbQ12(20.0);
constexpr int kSmoothBands = 4;           // gains averaged over bands b-4..b+4
constexpr int32_t kZero = -16000000;      // a power of 0 (-3906 dB), below any input
constexpr int32_t kStepQ12 = 256;         // table step: 1/16 dB
constexpr int32_t kTableSteps = 48 * 16;  // 48 dB; beyond, a log-add adds < 0.0001 dB

// table(d) for d >= 0 (dB Q12), linearly interpolated between the 1/16 dB steps; 0 beyond it.
int32_t Interpolate(const std::vector<int32_t>& table, int32_t d_q12) {
  const int32_t step = d_q12 / kStepQ12;
  if (step >= kTableSteps) return 0;
  const int32_t lo = table[static_cast<size_t>(step)], hi = table[static_cast<size_t>(step) + 1];
  return lo + (hi - lo) * (d_q12 % kStepQ12) / kStepQ12;  // |hi - lo| < 2^14: no overflow
}

}  // namespace

NoiseSuppression::NoiseSuppression(int bands, int16_t floor_db_q8)
    : power_q12_(bands),
      noise_q12_(bands),
      floor_q12_(bands),
      peak_q12_(bands),
      gain_q12_(bands),
      floor_db_q8_(floor_db_q8) {
  for (int32_t i = 0; i <= kTableSteps; ++i) {
    const double ratio = std::pow(10.0, -i / 16.0 / 10.0);
    add_table_q12_.push_back(DbQ12(1.0 + ratio));
    sub_table_q12_.push_back(i == 0 ? kZero : DbQ12(1.0 - ratio));
  }
  for (int32_t d = 0; d < kStepQ12; ++d) {
    sub_fine_q12_.push_back(d == 0 ? kZero : DbQ12(1.0 - std::pow(10.0, -d / 4096.0 / 10.0)));
  }
  for (int n = 0; n <= 2 * kSmoothBands + 1; ++n) count_q12_.push_back(n == 0 ? 0 : DbQ12(n));
}

int32_t NoiseSuppression::LogAdd(int32_t a_db_q12, int32_t b_db_q12) const {
  const int32_t high = std::max(a_db_q12, b_db_q12);
  return high + Interpolate(add_table_q12_, high - std::min(a_db_q12, b_db_q12));
}

int32_t NoiseSuppression::LogSub(int32_t a_db_q12, int32_t b_db_q12) const {
  const int32_t d = a_db_q12 - b_db_q12;
  if (d <= 0 || a_db_q12 <= kZero) return kZero;
  // Under one step the curve is steepest: there each Q12 value of d has its own entry.
  const int32_t below =
      d < kStepQ12 ? sub_fine_q12_[static_cast<size_t>(d)] : Interpolate(sub_table_q12_, d);
  return std::max(kZero, a_db_q12 + below);
}

int32_t NoiseSuppression::LowEnvelope(int32_t in, int32_t envelope) const {
  return in >= envelope ? LogAdd(envelope + kRise, in + kRiseIn)
                        : LogAdd(envelope + kFall, in + kFallIn);
}

void NoiseSuppression::Process(std::span<int16_t> logmel_db_q8) {
  const int bands = static_cast<int>(logmel_db_q8.size());
  auto in_q12 = [&](int b) { return int32_t{logmel_db_q8[b]} * 16; };  // Q8 -> Q12
  if (!started_) {
    for (int b = 0; b < bands; ++b) {
      power_q12_[b] = noise_q12_[b] = in_q12(b);
      floor_q12_[b] = in_q12(b) - kMaxGain;
      peak_q12_[b] = kZero;
    }
    started_ = true;
  }
  for (int b = 0; b < bands; ++b) {
    power_q12_[b] = LogAdd(power_q12_[b] + kSmoothPower, in_q12(b) + kSmoothPowerIn);
    noise_q12_[b] = LowEnvelope(power_q12_[b], noise_q12_[b]);
    int32_t signal = LogSub(power_q12_[b], noise_q12_[b]);
    floor_q12_[b] = std::max(kZero, LowEnvelope(signal, floor_q12_[b]));
    // Temporal masking: after a peak, what falls fast is held at a share of the decaying peak.
    const int32_t unmasked = signal;
    peak_q12_[b] = std::max(kZero, peak_q12_[b] + kPeakDecay);
    if (signal < peak_q12_[b] + kPeakDecay) signal = peak_q12_[b] + kMasked;
    peak_q12_[b] = std::max(peak_q12_[b], unmasked);
    signal = std::max(signal, floor_q12_[b]);
    gain_q12_[b] = std::clamp(signal - power_q12_[b], -kMaxGain, kMaxGain);
  }
  // Each band's gain: the mean of the linear gains of bands b-4..b+4.
  for (int b = 0; b < bands; ++b) {
    const int first = std::max(0, b - kSmoothBands), last = std::min(bands - 1, b + kSmoothBands);
    int32_t sum = gain_q12_[first];
    for (int j = first + 1; j <= last; ++j) sum = LogAdd(sum, gain_q12_[j]);
    const int32_t mean_q12 = sum - count_q12_[static_cast<size_t>(last - first + 1)];
    const int64_t out_q8 = logmel_db_q8[b] + RoundShift(mean_q12, 4);  // Q12 -> Q8
    logmel_db_q8[b] = static_cast<int16_t>(std::clamp<int64_t>(out_q8, floor_db_q8_, INT16_MAX));
  }
}

}  // namespace earshot::features
