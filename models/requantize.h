// Requantize: the int8 engine's one rescaling, shared by every int8 network (int8_mlp.h,
// models/embedding): an int32 accumulator at the scale s_w * s_in brought to the output's step
// s_out by mult / 2^shift = s_w * s_in / s_out (tools/train/vad_export.py's `multiplier`).
#pragma once

#include <cstdint>

namespace earshot::models {

// acc * mult / 2^shift, rounded half up: |acc| < 2^31 and mult < 2^31, so the product fits in
// int64; shift in [1, 62].
inline int64_t Requantize(int32_t acc, int32_t mult, int32_t shift) {
  return (int64_t{acc} * mult + (int64_t{1} << (shift - 1))) >> shift;
}

}  // namespace earshot::models
