#include "features/mel_filterbank.h"

#include <algorithm>
#include <cmath>

#include "base/q15.h"
#include "features/simd.h"

namespace earshot::features {
namespace {

// Slaney: linear, 200/3 Hz per mel, up to 1000 Hz (15 mel); above, 27 mel per factor 6.4.
constexpr double kSlaneyHzPerMel = 200.0 / 3.0;
constexpr double kSlaneyBreakHz = 1000.0;
constexpr double kSlaneyBreakMel = kSlaneyBreakHz / kSlaneyHzPerMel;  // 15
double SlaneyLogStep() { return std::log(6.4) / 27.0; }               // ln(Hz ratio) per mel

double HzToMel(double hz, MelScale scale) {
  if (scale == MelScale::kHtk) return 2595.0 * std::log10(1.0 + hz / 700.0);
  if (hz < kSlaneyBreakHz) return hz / kSlaneyHzPerMel;
  return kSlaneyBreakMel + std::log(hz / kSlaneyBreakHz) / SlaneyLogStep();
}

double MelToHz(double mel, MelScale scale) {
  if (scale == MelScale::kHtk) return 700.0 * (std::pow(10.0, mel / 2595.0) - 1.0);
  if (mel < kSlaneyBreakMel) return mel * kSlaneyHzPerMel;
  return kSlaneyBreakHz * std::exp((mel - kSlaneyBreakMel) * SlaneyLogStep());
}

}  // namespace

std::vector<double> MelEdgesHz(int bands, int low_hz, int high_hz, MelScale scale) {
  const double mel_low = HzToMel(low_hz, scale);
  const double mel_step = (HzToMel(high_hz, scale) - mel_low) / (bands + 1);
  std::vector<double> edges;
  for (int i = 0; i < bands + 2; ++i) edges.push_back(MelToHz(mel_low + i * mel_step, scale));
  return edges;
}

std::vector<double> MelBandGains(int bands, int low_hz, int high_hz, MelScale scale, MelNorm norm) {
  if (norm == MelNorm::kPeak) return std::vector<double>(static_cast<size_t>(bands), 1.0);
  const std::vector<double> edges = MelEdgesHz(bands, low_hz, high_hz, scale);
  std::vector<double> gains;
  for (int b = 0; b < bands; ++b) gains.push_back(2.0 / (edges[b + 2] - edges[b]));
  return gains;
}

std::vector<MelBand> MelBands(int bands, int low_hz, int high_hz, int fft_size, int sample_rate,
                              MelScale scale) {
  const std::vector<double> edges = MelEdgesHz(bands, low_hz, high_hz, scale);
  const double bin_hz = static_cast<double>(sample_rate) / fft_size;
  std::vector<MelBand> out(bands);
  for (int b = 0; b < bands; ++b) {
    const double left = edges[b], center = edges[b + 1], right = edges[b + 2];
    out[b].first_bin = -1;
    for (int k = 0; k <= fft_size / 2; ++k) {
      const double f = k * bin_hz;
      const double w = f <= center ? (f - left) / (center - left) : (right - f) / (right - center);
      if (w <= 0) {
        if (out[b].first_bin >= 0) break;
        continue;
      }
      if (out[b].first_bin < 0) out[b].first_bin = k;
      out[b].weights.push_back(w);
    }
    if (out[b].first_bin < 0) out[b].first_bin = 0;  // narrower than a bin: an empty band
  }
  return out;
}

MelFilterbank::MelFilterbank(int bands, int low_hz, int high_hz, int fft_size, int sample_rate,
                             MelScale scale, bool allow_simd)
    : power_(fft_size / 2 + 1), simd_(allow_simd && simd::Available()) {
  weight_offset_.push_back(0);
  for (const MelBand& band : MelBands(bands, low_hz, high_hz, fft_size, sample_rate, scale)) {
    first_bin_.push_back(band.first_bin);
    for (double w : band.weights)
      weights_q15_.push_back(SaturateTo<int16_t>(std::lround(w * kQ15One)));
    weight_offset_.push_back(static_cast<int>(weights_q15_.size()));
  }
}

void MelFilterbank::Process(std::span<const ComplexInt32> spectrum, std::span<uint64_t> mel_energy) {
  size_t k = 0;
  if (simd_) {  // groups of four bins; the rest below
    const size_t groups = power_.size() / 4;
    simd::PowerSpectrum(reinterpret_cast<const int32_t*>(spectrum.data()), groups, kPowerShift,
                        power_.data());
    k = 4 * groups;
  }
  for (; k < power_.size(); ++k) {
    // |re|, |im| <= 2^30.5 (RealFft): each square < 2^61, the sum < 2^62.
    const auto re = static_cast<uint64_t>(int64_t{spectrum[k].re} * spectrum[k].re);
    const auto im = static_cast<uint64_t>(int64_t{spectrum[k].im} * spectrum[k].im);
    power_[k] = (re + im + (uint64_t{1} << (kPowerShift - 1))) >> kPowerShift;  // rounded
  }
  for (size_t b = 0; b < first_bin_.size(); ++b) {
    // Pointer arithmetic, not operator[]: an empty band (narrower than a bin) may sit at the end
    // of the weights, or be all there is (fuzzing found a 1 Hz range of 128 bands).
    const uint64_t* p = power_.data() + first_bin_[b];
    const int16_t* w = weights_q15_.data() + weight_offset_[b];
    const int count = weight_offset_[b + 1] - weight_offset_[b];
    uint64_t sum = 0;
    for (int i = 0; i < count; ++i) sum += static_cast<uint64_t>(w[i]) * p[i];  // Q15 * P
    mel_energy[b] = sum;
  }
}

}  // namespace earshot::features
