// Stages 4-5: power spectrum and mel filterbank.
// Bands are triangles with edges equally spaced in mel between mel_low_hz and mel_high_hz, on the
// HTK mel scale (mel = 2595 log10(1 + f / 700)) or Slaney's (mel = 3 f / 200 below 1000 Hz,
// 15 + 27 ln(f / 1000) / ln(6.4) above; Slaney's Auditory Toolbox, librosa's htk=False), peak
// weight 1 (Q15: 32767). Area normalisation (MelNorm::kArea) is not folded into the Q15 weights,
// whose narrow low bands would lose precision: LogScale adds it as a per-band offset
// (MelBandGains).
//
// Power: P[k] = (re^2 + im^2) >> 14, rounded, in 64 bits. Headroom by Parseval: with |x| <= 2^21
// over a 400-sample window and N = 512, sum_k |X[k]|^2 = N sum_n x^2 < 2^9 * 2^9 * 2^42 = 2^60, so
// sum P < 2^46; a band sums Q15 weights (< 2^15) times P: < 2^61, inside uint64 whatever the
// spectrum. (A >> 16 that truncated biased bands 100 dB below a full-scale tone by -0.6 dB.)
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "features/fixed_point.h"
#include "features/front_end_config.h"

namespace earshot::features {

// The triangular weights in floating point: shared by the fixed-point table and the float reference.
struct MelBand {
  int first_bin;
  std::vector<double> weights;  // for bins first_bin, first_bin + 1, ...
};
std::vector<MelBand> MelBands(int bands, int low_hz, int high_hz, int fft_size, int sample_rate,
                              MelScale scale = MelScale::kHtk);
// The bands + 2 edges in Hz: band b rises from edge b, peaks at b + 1 and falls to b + 2.
std::vector<double> MelEdgesHz(int bands, int low_hz, int high_hz, MelScale scale = MelScale::kHtk);
// Per band, the factor its peak-1 energy is multiplied by: 1 (kPeak), or 2 / (right - left) in
// 1/Hz (kArea: every triangle has unit area over frequency, as librosa's norm="slaney").
std::vector<double> MelBandGains(int bands, int low_hz, int high_hz, MelScale scale, MelNorm norm);

class MelFilterbank {
 public:
  static constexpr int kPowerShift = 14;  // P = |X|^2 >> 14

  // `allow_simd`: the SIMD power spectrum (features/simd.h; same results).
  MelFilterbank(int bands, int low_hz, int high_hz, int fft_size, int sample_rate,
                MelScale scale = MelScale::kHtk, bool allow_simd = true);

  // spectrum: fft_size/2 + 1 bins. mel_energy: `bands` values,
  // mel_energy = sum_k w_q15[k] * (|X[k]|^2 >> 14), i.e. the band energy in Q15 * 2^-14.
  void Process(std::span<const ComplexInt32> spectrum, std::span<uint64_t> mel_energy);

  int bands() const { return static_cast<int>(first_bin_.size()); }

 private:
  std::vector<int> first_bin_;      // per band
  std::vector<int> weight_offset_;  // per band, into weights_q15_; band b has
                                    // weight_offset_[b+1] - weight_offset_[b] weights
  std::vector<int16_t> weights_q15_;
  std::vector<uint64_t> power_;     // scratch: fft_size/2 + 1 bins
  bool simd_;
};

}  // namespace earshot::features
