// Stage 2: Hann window in Q15 and block scaling into the FFT's input range.
// The windowed frame is shifted so its largest magnitude lies in [2^(b-1), 2^b], b = max_bits
// (21 for the 512-point FFT, see RealFft::max_input_bits): quiet frames keep
// full precision through the FFT, loud ones leave it headroom (see RealFft). The shift is returned
// as a block exponent, so later stages know the absolute level.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace earshot::features {

class Window {
 public:
  // Periodic Hann of `length` samples: w[n] = 0.5 - 0.5 cos(2 pi n / length). `allow_simd`: the
  // NEON kernels on aarch64 (features/simd.h; same results; false forces plain C++).
  Window(int length, int max_bits, bool allow_simd = true);

  // frame_q8: `length` samples, Q8 (< 2^25). fft_in: the FFT's input (>= length values; the rest
  // is zero-filled), |v| <= 2^max_bits.
  // Returns e, the block exponent: fft_in[n] = x[n] * w[n] * 2^e with x in int16 units, or
  // kSilent if the windowed frame is all zeros.
  int Process(std::span<const int32_t> frame_q8, std::span<int32_t> fft_in);

  static constexpr int kSilent = -1000;
  const std::vector<int16_t>& weights_q15() const { return window_q15_; }

 private:
  std::vector<int16_t> window_q15_;
  int max_bits_;
  std::vector<int64_t> product_q23_;  // scratch: frame_q8 * window_q15 (plain path)
  size_t simd_length_;  // samples the SIMD kernels take (a multiple of 4; 0: none)
};

}  // namespace earshot::features
