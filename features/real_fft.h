// Stage 3: real FFT in fixed point (512 points by default), as a half-size complex radix-2 FFT
// plus the usual split step (e.g. Sorensen et al. 1987; TFLM's microfrontend uses kissfft the same
// way). Twiddles are Q30; products are formed in 64 bits and rounded back.
//
// Scaling: none inside the transform. The caller's block scaling (Window) bounds the input to
// |x| <= 2^21; the unnormalised DFT then satisfies |X[k]| <= sum |x| <= N 2^21 = 2^30 for N = 512,
// and no butterfly exceeds that growth, so every intermediate fits int32 (checked in tests with
// full-scale inputs). Other sizes scale the bound: max_input_bits().
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "features/fixed_point.h"

namespace earshot::features {

class RealFft {
 public:
  explicit RealFft(int fft_size);

  // in: fft_size real values with |x| <= 2^max_input_bits().
  // out: fft_size/2 + 1 bins of X[k] = sum_n x[n] e^(-2 pi i k n / N), same scale as the input.
  void Process(std::span<const int32_t> in, std::span<ComplexInt32> out);

  int size() const { return n_; }
  // |x| <= 2^(30 - log2 N) keeps |X| <= 2^30 and the split step's sums <= 2^30.5: inside int32.
  int max_input_bits() const { return 30 - log2_n_; }

 private:
  void ComplexFft();  // in place on work_, size n_/2

  int n_;
  int log2_n_;
  std::vector<uint16_t> bit_reverse_;      // n/2 entries
  std::vector<ComplexInt32> twiddle_q30_;  // e^(-2 pi i k / (n/2)), k < n/4
  std::vector<ComplexInt32> split_q30_;    // e^(-2 pi i k / n), k <= n/2
  std::vector<ComplexInt32> work_;         // n/2 complex values
};

}  // namespace earshot::features
