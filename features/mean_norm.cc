#include "features/mean_norm.h"

#include <algorithm>

#include "features/fixed_point.h"

namespace earshot::features {

void RunningMeanNorm::Process(std::span<int32_t> values_q8) {
  for (size_t i = 0; i < values_q8.size(); ++i) {
    const int64_t value_q16 = int64_t{values_q8[i]} << 8;  // Q8 -> Q16
    if (!primed_) {
      mean_q16_[i] = value_q16;
    } else {
      mean_q16_[i] += RoundShift(value_q16 - mean_q16_[i], shift_);
    }
    values_q8[i] = static_cast<int32_t>(values_q8[i] - RoundShift(mean_q16_[i], 8));  // Q16 -> Q8
  }
  primed_ = true;
}

void RunningMeanNorm::Reset() {
  std::fill(mean_q16_.begin(), mean_q16_.end(), 0);
  primed_ = false;
}

}  // namespace earshot::features
