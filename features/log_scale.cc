#include "features/log_scale.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "features/fixed_point.h"
#include "features/mel_filterbank.h"
#include "features/window.h"

namespace earshot::features {
namespace {

// 10 log10(2) = 3.0103 dB per octave, in Q15.
constexpr int64_t kDbPerOctaveQ15 = 98643;

}  // namespace

LogScale::LogScale(double window_sum, LogReference reference, std::span<const double> band_gains,
                   int16_t floor_db_q8)
    : floor_db_q8_(floor_db_q8) {
  for (int i = 0; i <= 256; ++i) {
    log2_table_q16_[i] = static_cast<int32_t>(std::lround(std::log2(1.0 + i / 256.0) * 65536.0));
  }
  // mel_energy = M * 2^15 * 2^(2e) * 2^-14 = M * 2^(2e + 1), with M the band energy in int16 units
  // (Q15 weights; X scaled by 2^e; the power's >> 14): M = sum_k w[k] |X[k]|^2, X the unnormalised
  // DFT of the int16-valued samples times the window, w the peak-1 weights. With g the band's gain
  // (1, or the area normalisation's 2 / (right - left)) and E_ref the energy that reads 0 dB,
  // dB = 10 log10(g M / E_ref) = 3.0103 * (log2(mel_energy) - 2e - 1 + log2(g) - log2(E_ref)).
  //   kFullScale:  E_ref = E_fs = (32768 * window_sum / 2)^2, a full-scale sine at a bin centre.
  //   kInt16Power: E_ref = 1, so log2(E_ref) = 0 (the dB are 10 log10(g M), the float graph's).
  // The constant terms are rounded to Q16 once per band; the per-frame -2e is added in Process.
  static_assert(MelFilterbank::kPowerShift == 14, "the offset below assumes P = |X|^2 >> 14");
  const double log2_reference =
      reference == LogReference::kFullScale ? 2.0 * std::log2(32768.0 * window_sum / 2.0) : 0.0;
  for (double gain : band_gains) {
    offset_q16_.push_back(std::lround((-1.0 + std::log2(gain) - log2_reference) * 65536.0));
  }
}

LogScale::LogScale(double window_sum, int16_t floor_db_q8)
    : LogScale(window_sum, LogReference::kFullScale, std::vector<double>(kMaxBands, 1.0),
               floor_db_q8) {}

int64_t LogScale::Log2Q16(uint64_t v) const {
  // v normalised so its leading one is bit 63 (v = 2^msb (1 + f)): the 16 bits below it are f in
  // Q16, whatever msb (below 16 the shift brings in zeros, as v << (16 - msb) would).
  const int leading_zeros = std::countl_zero(v);
  const uint32_t frac_q16 = static_cast<uint32_t>((v << leading_zeros) >> 47) & 0xFFFF;
  const uint32_t index = frac_q16 >> 8;  // table segment
  const int64_t t_q8 = frac_q16 & 0xFF;  // position inside it, Q8
  const int64_t lo = log2_table_q16_[index];
  const int64_t hi = log2_table_q16_[index + 1];
  const int64_t msb = 63 - leading_zeros;
  return msb * 65536 + lo + RoundShift((hi - lo) * t_q8, 8);  // (Q16 * Q8) >> 8 = Q16
}

void LogScale::Process(std::span<const uint64_t> mel_energy, int exponent,
                       std::span<int16_t> db_q8) const {
  if (exponent == Window::kSilent) {
    std::fill_n(db_q8.begin(), mel_energy.size(), floor_db_q8_);
    return;
  }
  const int64_t exponent_q16 = int64_t{2 * exponent} * 65536;  // the block scaling, once per frame
  for (size_t b = 0; b < mel_energy.size(); ++b) {
    if (mel_energy[b] == 0) {
      db_q8[b] = floor_db_q8_;
      continue;
    }
    const int64_t log2_q16 = Log2Q16(mel_energy[b]) + offset_q16_[b] - exponent_q16;
    // (Q16 * Q15) >> 23 = Q8; |log2| < 2^7 octaves, so the product < 2^7 * 2^16 * 2^17 = 2^40.
    const int64_t db = RoundShift(log2_q16 * kDbPerOctaveQ15, 23);
    db_q8[b] = SaturateTo<int16_t>(std::max<int64_t>(db, floor_db_q8_));
  }
}

}  // namespace earshot::features
