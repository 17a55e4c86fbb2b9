#include "features/window.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numbers>

#include "base/q15.h"
#include "features/fixed_point.h"
#include "features/simd.h"

namespace earshot::features {

Window::Window(int length, int max_bits, bool allow_simd)
    : window_q15_(length), max_bits_(max_bits), product_q23_(length), simd_length_(0) {
#if defined(__aarch64__)
  if (allow_simd && simd::Available()) simd_length_ = static_cast<size_t>(length) / 4 * 4;
#else
  (void)allow_simd;
#endif
  for (int n = 0; n < length; ++n) {
    const double w = 0.5 - 0.5 * std::cos(2 * std::numbers::pi * n / length);
    window_q15_[n] = SaturateTo<int16_t>(std::lround(w * kQ15One));  // 1.0 saturates to 32767
  }
}

int Window::Process(std::span<const int32_t> frame_q8, std::span<int32_t> fft_in) {
  uint64_t max_abs = 0;
  const size_t length = window_q15_.size();
#if defined(__aarch64__)
  const size_t first = simd_length_;  // the plain loops take the rest
  if (first > 0) {  // the products again in the second pass, not kept
    max_abs = simd::WindowMagnitudes(frame_q8.data(), window_q15_.data(), first);
  }
#else
  constexpr size_t first = 0;  // a constant: GCC vectorises the loops from 0 (a member cost 10%)
#endif
  for (size_t n = first; n < length; ++n) {
    // Q8 * Q15 = Q23; |product| < 2^25 * 2^15 = 2^40.
    product_q23_[n] = int64_t{frame_q8[n]} * window_q15_[n];
    max_abs |= static_cast<uint64_t>(product_q23_[n] < 0 ? -product_q23_[n] : product_q23_[n]);
  }
  std::fill(fft_in.begin() + static_cast<ptrdiff_t>(length), fft_in.end(), 0);
  if (max_abs == 0) {
    std::fill(fft_in.begin(), fft_in.end(), 0);
    return kSilent;
  }
  // OR of the magnitudes has the same top bit as their maximum. Shift so the top bit lands on
  // bit max_bits-1: values then lie below 2^max_bits (rounding may reach it exactly: in range).
  const auto bits = static_cast<int>(std::bit_width(max_abs));
  const int shift_right = bits - max_bits_;
#if defined(__aarch64__)
  if (first > 0) {
    simd::WindowScale(frame_q8.data(), window_q15_.data(), first, shift_right, fft_in.data());
  }
#endif
  if (shift_right > 0) {  // the usual case: loud enough to drop bits (one branch per frame)
    for (size_t n = first; n < length; ++n) {
      fft_in[n] = static_cast<int32_t>(RoundShift(product_q23_[n], shift_right));
    }
  } else {
    for (size_t n = first; n < length; ++n) {
      fft_in[n] = static_cast<int32_t>(product_q23_[n] * (int64_t{1} << -shift_right));
    }
  }
  return 23 - shift_right;  // fft_in = x * w * 2^(23 - shift_right)
}

}  // namespace earshot::features
