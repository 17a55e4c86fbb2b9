// Fixed-point helpers of the front end. A value's Q-format is in its name: `x_q15` holds
// x * 2^15 in an integer. Every right shift that drops bits goes through RoundShift, so rounding is
// the same everywhere (round half up: add 2^(s-1), then shift), which the golden vectors pin down.
#pragma once

#include <cstdint>
#include <limits>

namespace earshot::features {

// (x + 2^(shift-1)) >> shift: arithmetic shift right with rounding; shift in [1, 62].
constexpr int64_t RoundShift(int64_t x, int shift) {
  return (x + (int64_t{1} << (shift - 1))) >> shift;
}

// x * 2^shift for shift >= 0, rounded x / 2^-shift otherwise.
constexpr int64_t ScaleByPow2(int64_t x, int shift) {
  return shift >= 0 ? x * (int64_t{1} << shift) : RoundShift(x, -shift);
}

template <typename T>
constexpr T SaturateTo(int64_t x) {
  if (x > std::numeric_limits<T>::max()) return std::numeric_limits<T>::max();
  if (x < std::numeric_limits<T>::min()) return std::numeric_limits<T>::min();
  return static_cast<T>(x);
}

// A complex value in a fixed-point format named where it is used (ComplexQ30 twiddles, ...).
struct ComplexInt32 {
  int32_t re;
  int32_t im;
};

}  // namespace earshot::features
