// Stage 6: log of the mel energies in integer arithmetic, as dB, Q8, relative to a reference
// (LogReference): by default full scale, where 0 dB is the band energy of a full-scale sine
// (amplitude 32768) at a bin centre under a weight of 1; or a power of 1 in int16 units. A per-band
// gain (area normalisation, MelBandGains) is added as a log offset, not folded into the Q15
// weights. Values are floored at floor_db_q8 (by default kFloorDbQ8, -100 dB), which is also what
// digital silence gives.
//
// log2 is read from a 257-entry table of log2(1 + i/256) in Q16 with linear interpolation
// (error < 3e-6 octave, 1e-5 dB), after normalising the energy's leading bit.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "features/front_end_config.h"

namespace earshot::features {

class LogScale {
 public:
  static constexpr int16_t kFloorDbQ8 = -100 * 256;
  static constexpr int kMaxBands = 128;  // FrontEndConfig::Validate's limit

  // window_sum: sum of the analysis window's weights (in [0, 1] units), for the full-scale
  // reference. band_gains: per band, the factor its energy is multiplied by (MelBandGains; at most
  // kMaxBands); Process takes that many bands.
  LogScale(double window_sum, LogReference reference, std::span<const double> band_gains,
           int16_t floor_db_q8);
  // Full scale, a gain of 1 in every band (up to kMaxBands).
  explicit LogScale(double window_sum, int16_t floor_db_q8 = kFloorDbQ8);

  int16_t floor_db_q8() const { return floor_db_q8_; }

  // mel_energy: Q15 * (|X|^2 >> 14) from MelFilterbank, X at block exponent `exponent` (Window);
  // at most as many bands as the gains given.
  void Process(std::span<const uint64_t> mel_energy, int exponent, std::span<int16_t> db_q8) const;

  // log2(v) in Q16 for v > 0 (exposed for tests).
  int64_t Log2Q16(uint64_t v) const;

 private:
  std::array<int32_t, 257> log2_table_q16_;  // log2(1 + i/256) * 2^16
  std::vector<int64_t> offset_q16_;          // per band, log2 of the constant factors, see the .cc
  int16_t floor_db_q8_;
};

}  // namespace earshot::features
