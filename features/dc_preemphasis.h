// Stage 1: DC removal and pre-emphasis, streaming over 10 ms hops.
//   DC removal (one-pole high-pass):  y[n] = x[n] - x[n-1] + a * y[n-1],   a = dc_pole (0.995)
//   pre-emphasis:                     p[n] = y[n] - b * y[n-1],            b = preemphasis (0.97)
// y is kept in Q8 (8 fraction bits beyond int16) so the recursion's rounding noise, amplified by
// 1 / (1 - a^2) ~ 100 in power, stays far below one input LSB.
#pragma once

#include <cstdint>
#include <span>

namespace earshot::features {

class DcPreEmphasis {
 public:
  DcPreEmphasis(int dc_pole_q15, int preemphasis_q15)
      : dc_pole_q15_(dc_pole_q15), preemphasis_q15_(preemphasis_q15) {}

  // in: int16 samples; out_q8: p[n] * 2^8, same length.
  // Headroom: the high-pass has h[0] = 1, h[n] = -(1-a) a^(n-1), so sum |h| = 2,
  // |y| < 2^16 and |p| < (1 + b) 2^16 < 2^17: out_q8 < 2^25, far inside int32.
  void Process(std::span<const int16_t> in, std::span<int32_t> out_q8);
  void Reset();

 private:
  int32_t dc_pole_q15_;
  int32_t preemphasis_q15_;
  int32_t x_prev_ = 0;     // x[n-1], Q0
  int32_t y_prev_q8_ = 0;  // y[n-1], Q8
};

}  // namespace earshot::features
