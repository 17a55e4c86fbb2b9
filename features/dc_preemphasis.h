// Stage 1: DC removal and pre-emphasis, streaming over 10 ms hops.
//   DC removal (one-pole high-pass):  y[n] = x[n] - x[n-1] + a * y[n-1],   a = dc_pole (0.995)
//   pre-emphasis:                     p[n] = y[n] - b * y[n-1],            b = preemphasis (0.97)
// y is kept in Q8 (8 fraction bits beyond int16) so the recursion's rounding noise, amplified by
// 1 / (1 - a^2) ~ 100 in power, stays far below one input LSB.
// Without DC removal the pole is 1 (Q15: 32768), which makes the high-pass the identity exactly in
// integers: from the zero state, y[n] = sum_{m<=n} (x[m] - x[m-1]) = x[n], and 1 * y_q8 >> 15 loses
// no bits. So the samples pass through scaled to Q8, then pre-emphasis (none at b = 0: x << 8).
#pragma once

#include <cstdint>
#include <span>

#include "base/q15.h"

namespace earshot::features {

class DcPreEmphasis {
 public:
  static constexpr int32_t kIdentityPoleQ15 = kQ15One;  // 1.0: no DC removal

  // dc_removal false ignores dc_pole_q15 (see above).
  DcPreEmphasis(int dc_pole_q15, int preemphasis_q15, bool dc_removal = true)
      : dc_pole_q15_(dc_removal ? dc_pole_q15 : kIdentityPoleQ15),
        preemphasis_q15_(preemphasis_q15) {}

  // in: int16 samples; out_q8: p[n] * 2^8, same length.
  // Headroom: the high-pass has h[0] = 1, h[n] = -(1-a) a^(n-1), so sum |h| = 2,
  // |y| < 2^16 and |p| < (1 + b) 2^16 < 2^17: out_q8 < 2^25, far inside int32 (a = 1: |y| <= 2^15).
  void Process(std::span<const int16_t> in, std::span<int32_t> out_q8);
  void Reset();

 private:
  int32_t dc_pole_q15_;
  int32_t preemphasis_q15_;
  int32_t x_prev_ = 0;     // x[n-1], Q0
  int32_t y_prev_q8_ = 0;  // y[n-1], Q8
};

}  // namespace earshot::features
