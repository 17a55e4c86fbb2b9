// Stage 6b (optional): noise suppression of the log-mel energies, for the cepstra of speech-to-text
// (pocketsphinx's acoustic model was trained with its -remove_noise on). Asymmetric noise
// tracking with temporal masking and gains smoothed across bands, as in power-normalised cepstral
// coefficients (Kim and Stern, 2016), per band b with P the band's power (linear):
//   power   S = 0.7 S + 0.3 P                       (smoothed; the first frame sets S = noise = P)
//   noise   N follows S slowly up (0.999) and fast down (0.5)
//   signal  X = max(S - N, 0), its own floor F tracked the same way (first frame: P / 20),
//           temporal masking: the peak decays by 0.85 a frame; X under 0.85 peak becomes 0.15 peak
//   gain    G = max(X, F) / S in [1/20, 20], averaged over bands b-4..b+4; output P * mean G.
// Everything is in dB re full scale, Q12 inside (LogScale's Q8 values times 16; in Q8, 0.999 would
// read 0.99910 and the noise estimate rise 10% slower): products are sums, and a sum of powers
// is a log-add, max(a, b) + 10 log10(1 + 10^(-|a-b|/10)), from a table in 1/16 dB steps with
// linear interpolation (error < 0.01 dB); differences likewise with 10 log10(1 - 10^(-d/10)),
// steep near d = 0: under 1/16 dB each Q12 step of d has its own entry (within 0.1 dB from
// d = 0.5 dB up).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace earshot::features {

class NoiseSuppression {
 public:
  NoiseSuppression(int bands, int16_t floor_db_q8);

  // logmel_db_q8: `bands` values, rewritten in place (floored at floor_db_q8, as LogScale).
  void Process(std::span<int16_t> logmel_db_q8);
  // The next frame starts the estimates afresh.
  void Reset() { started_ = false; }

  // 10 log10(10^(a/10) + 10^(b/10)) and, for a > b, 10 log10(10^(a/10) - 10^(b/10)); dB Q12.
  int32_t LogAdd(int32_t a_db_q12, int32_t b_db_q12) const;
  int32_t LogSub(int32_t a_db_q12, int32_t b_db_q12) const;

 private:
  // The slow-up, fast-down envelope that tracks the lower edge of `in` (dB Q12).
  int32_t LowEnvelope(int32_t in, int32_t envelope) const;

  std::vector<int32_t> add_table_q12_;  // 10 log10(1 + 10^(-d/10)), d in 1/16 dB
  std::vector<int32_t> sub_table_q12_;  // 10 log10(1 - 10^(-d/10)), d in 1/16 dB (d > 0)
  std::vector<int32_t> sub_fine_q12_;   // the same for d under 1/16 dB, each Q12 value
  std::vector<int32_t> count_q12_;      // 10 log10(n): dividing a sum of n powers by n
  // Per band, dB Q12: smoothed power, noise, signal floor, masking peak, gain.
  std::vector<int32_t> power_q12_, noise_q12_, floor_q12_, peak_q12_, gain_q12_;
  int16_t floor_db_q8_;
  bool started_ = false;
};

}  // namespace earshot::features
