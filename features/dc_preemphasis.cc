#include "features/dc_preemphasis.h"

#include "features/fixed_point.h"

namespace earshot::features {

void DcPreEmphasis::Process(std::span<const int16_t> in, std::span<int32_t> out_q8) {
  // Coefficients and state in locals: a store to out_q8 may alias *this as far as the compiler
  // knows, and with members it reloaded the coefficients every sample.
  const int64_t dc_pole_q15 = dc_pole_q15_, preemphasis_q15 = preemphasis_q15_;
  int32_t x_prev = x_prev_, y_prev_q8 = y_prev_q8_;
  for (size_t n = 0; n < in.size(); ++n) {
    const int32_t x = in[n];
    // (Q15 * Q8) >> 15 = Q8; |a y| < 2^31 since |y_q8| < 2^24 and a_q15 <= 2^15
    // (2^15: no DC removal; the product is in 64 bits).
    const int64_t feedback_q8 = RoundShift(dc_pole_q15 * y_prev_q8, 15);
    const auto y_q8 = static_cast<int32_t>(((x - x_prev) << 8) + feedback_q8);
    // (Q15 * Q8) >> 15 = Q8
    const int64_t emphasis_q8 = RoundShift(preemphasis_q15 * y_prev_q8, 15);
    out_q8[n] = static_cast<int32_t>(y_q8 - emphasis_q8);
    x_prev = x;
    y_prev_q8 = y_q8;
  }
  x_prev_ = x_prev;
  y_prev_q8_ = y_prev_q8;
}

void DcPreEmphasis::Reset() {
  x_prev_ = 0;
  y_prev_q8_ = 0;
}

}  // namespace earshot::features
