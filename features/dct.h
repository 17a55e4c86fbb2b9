// Stage 7: DCT-II of the log-mel energies to MFCCs (orthonormal scaling, as scipy's dct(norm=ortho)),
// with optional sinusoidal liftering folded into the matrix: c_i *= 1 + (L/2) sin(pi i / L).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace earshot::features {

// The DCT (and lifter) matrix in floating point: shared by the fixed-point table and the reference.
std::vector<double> DctMatrix(int bands, int coefficients, int lifter);  // row-major [coef][band]

class Dct {
 public:
  Dct(int bands, int coefficients, int lifter);

  // logmel_db_q8: `bands` values (dB, Q8). mfcc_q8: `coefficients` values (dB units, Q8).
  // The matrix is Q20: in Q14 the rounding of sqrt(1/40) alone moved c0 by 0.1 dB on a -100 dB floor.
  // Headroom: |logmel| < 2^15, |matrix| < 2^(20+6) (lifter <= 100), 128 bands: < 2^48 in int64.
  void Process(std::span<const int16_t> logmel_db_q8, std::span<int32_t> mfcc_q8) const;

 private:
  int bands_;
  int coefficients_;
  std::vector<int32_t> matrix_q20_;
};

}  // namespace earshot::features
