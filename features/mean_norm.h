// Stage 8 (optional): running cepstral mean normalisation. Each coefficient's mean is tracked with
// an exponential average of time constant 2^shift frames and subtracted: out = c - mean.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace earshot::features {

class RunningMeanNorm {
 public:
  RunningMeanNorm(int coefficients, int shift) : mean_q16_(coefficients), shift_(shift) {}

  // In place on Q8 values. The mean is kept in Q16 (8 more fraction bits) so small steps are not
  // lost: mean += ((c << 8) - mean) >> shift.
  void Process(std::span<int32_t> values_q8);
  void Reset();

 private:
  std::vector<int64_t> mean_q16_;
  int shift_;
  bool primed_ = false;  // the first frame sets the mean, so the start is not a step from 0
};

}  // namespace earshot::features
