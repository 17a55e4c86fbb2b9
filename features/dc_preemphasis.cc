#include "features/dc_preemphasis.h"

#include "features/fixed_point.h"

namespace earshot::features {

void DcPreEmphasis::Process(std::span<const int16_t> in, std::span<int32_t> out_q8) {
  for (size_t n = 0; n < in.size(); ++n) {
    const int32_t x = in[n];
    // (Q15 * Q8) >> 15 = Q8; |a y| < 2^31 since |y_q8| < 2^24 and a_q15 < 2^15.
    const int64_t feedback_q8 = RoundShift(int64_t{dc_pole_q15_} * y_prev_q8_, 15);
    const auto y_q8 = static_cast<int32_t>(((x - x_prev_) << 8) + feedback_q8);
    // (Q15 * Q8) >> 15 = Q8
    const int64_t emphasis_q8 = RoundShift(int64_t{preemphasis_q15_} * y_prev_q8_, 15);
    out_q8[n] = static_cast<int32_t>(y_q8 - emphasis_q8);
    x_prev_ = x;
    y_prev_q8_ = y_q8;
  }
}

void DcPreEmphasis::Reset() {
  x_prev_ = 0;
  y_prev_q8_ = 0;
}

}  // namespace earshot::features
