#include "features/dct.h"

#include <cmath>
#include <numbers>

#include "features/fixed_point.h"

namespace earshot::features {

std::vector<double> DctMatrix(int bands, int coefficients, int lifter) {
  std::vector<double> m(static_cast<size_t>(bands) * coefficients);
  for (int i = 0; i < coefficients; ++i) {
    const double scale = std::sqrt((i == 0 ? 1.0 : 2.0) / bands);
    const double lift = lifter > 0 ? 1.0 + 0.5 * lifter * std::sin(std::numbers::pi * i / lifter) : 1.0;
    for (int j = 0; j < bands; ++j) {
      m[i * bands + j] = lift * scale * std::cos(std::numbers::pi * i * (j + 0.5) / bands);
    }
  }
  return m;
}

Dct::Dct(int bands, int coefficients, int lifter)
    : bands_(bands), coefficients_(coefficients) {
  for (double v : DctMatrix(bands, coefficients, lifter)) {
    matrix_q20_.push_back(static_cast<int32_t>(std::lround(v * 1048576.0)));
  }
}

void Dct::Process(std::span<const int16_t> logmel_db_q8, std::span<int32_t> mfcc_q8) const {
  for (int i = 0; i < coefficients_; ++i) {
    const int32_t* row = &matrix_q20_[static_cast<size_t>(i) * bands_];
    int64_t sum_q28 = 0;  // Q8 * Q20
    for (int j = 0; j < bands_; ++j) sum_q28 += int64_t{row[j]} * logmel_db_q8[j];
    mfcc_q8[i] = static_cast<int32_t>(RoundShift(sum_q28, 20));  // Q28 >> 20 = Q8
  }
}

}  // namespace earshot::features
