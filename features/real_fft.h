// Stage 3: real FFT in fixed point (512 points by default), as a half-size complex FFT plus the
// usual split step (Sorensen et al., "Real-valued FFT algorithms", IEEE ASSP 1987). The complex FFT
// is decimation in time over bit-reversed input, in radix-4 passes (two radix-2 stages fused, three
// twiddle products per four points) with one radix-2 pass when log2(N/2) is odd. Data are int32 in
// separate real and imaginary arrays; twiddles are Q30; products are formed in 64 bits and rounded.
//
// Scaling: none inside the transform. The caller's block scaling (Window) bounds the input to
// |x| <= 2^(30 - log2 N) (2^21 for N = 512); the unnormalised DFT then satisfies
// |X[k]| <= sum |x| <= 2^30, every butterfly output is a partial DFT bounded the same way, and the
// split step's doubled sums stay below 2^31.5 in int64 before the final halving: all of it fits.
// Checked in tests with full-scale DC, Nyquist and random inputs.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "features/fixed_point.h"

namespace earshot::features {

class RealFft {
 public:
  // `allow_simd`: use the SIMD kernels (features/simd.h: AVX2 where the CPU has it, NEON on
  // aarch64; same results; false forces plain C++).
  explicit RealFft(int fft_size, bool allow_simd = true);

  // in: fft_size real values with |x| <= 2^max_input_bits().
  // out: fft_size/2 + 1 bins of X[k] = sum_n x[n] e^(-2 pi i k n / N), same scale as the input.
  void Process(std::span<const int32_t> in, std::span<ComplexInt32> out);

  int size() const { return n_; }
  int max_input_bits() const { return 30 - log2_n_; }

 private:
  void Radix2Pass();
  void Radix4Pass(int quarter, const ComplexInt32* twiddles_q30);
  void Split(std::span<ComplexInt32> out) const;

  int n_;
  int log2_n_;
  std::vector<uint16_t> bit_reverse_;      // n/2 entries
  // Per radix-4 pass of quarter size q: q triples (w, w^2, w^3), w = e^(-2 pi i j / 4q), j < q.
  std::vector<ComplexInt32> pass_twiddles_q30_;
  // The same twiddles for the SIMD pass: per pass, w^1, w^2, w^3 as real and imaginary arrays.
  std::vector<int32_t> pass_twiddles_soa_q30_;
  std::vector<ComplexInt32> split_q30_;    // e^(-2 pi i k / n), k <= n/4
  std::vector<int32_t> split_re_q30_, split_im_q30_;  // the same, as two arrays (SIMD split)
  std::vector<int32_t> re_, im_;           // n/2 complex values being transformed
  bool simd_;
};

}  // namespace earshot::features
