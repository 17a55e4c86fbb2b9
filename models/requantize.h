// Requantize: the int8 engine's one rescaling, shared by every int8 network (int8_mlp.h,
// models/embedding): an int32 accumulator at the scale s_w * s_in brought to the output's step
// s_out by mult / 2^shift = s_w * s_in / s_out (tools/train/vad_export.py's `multiplier`).
// RequantizeRow does a row of channels at once with a clipped leaky ReLU (the speech embedding's
// activation): plain C++, and on aarch64 a NEON kernel with the same integers (tests check it).
#pragma once

#include <cstddef>
#include <cstdint>

namespace earshot::models {

// acc * mult / 2^shift, rounded half up: |acc| < 2^31 and mult < 2^31, so the product fits in
// int64; shift in [1, 62].
inline int64_t Requantize(int32_t acc, int32_t mult, int32_t shift) {
  return (int64_t{acc} * mult + (int64_t{1} << (shift - 1))) >> shift;
}

// One row's requantisation and activation.
struct RequantizeParams {
  const int32_t* bias;   // [n], at the accumulators' scale; |acc + bias| < 2^31
  const int32_t* mult;   // [n], in [1, 2^31)
  const int32_t* shift;  // [n], in [1, 62]
  int32_t slope_q16;     // the leaky ReLU's slope below 0, Q16, in [0, 65536] (65536: none)
  int32_t floor;         // the lower clip, in [-128, 0] (-128: none)
};

// out[o] = min(max(z < 0 ? (z * slope_q16 + 2^15) >> 16 : z, floor), 127) with
// z = Requantize(acc[o] + bias[o], mult[o], shift[o]) saturated to int32, for o < n. The NEON
// kernel where the CPU has it (aarch64), else the plain loop.
void RequantizeRow(const int32_t* acc, size_t n, const RequantizeParams& p, int8_t* out);
void RequantizeRowPlain(const int32_t* acc, size_t n, const RequantizeParams& p, int8_t* out);
// The aarch64 kernel (the plain loop elsewhere), for tests.
void RequantizeRowNeon(const int32_t* acc, size_t n, const RequantizeParams& p, int8_t* out);

}  // namespace earshot::models
