// Q15 fixed point: a value v in [-1, 1) held as the integer v * 2^15. Its one (1.0) is 32768,
// which an int16 cannot hold; its largest int16 value is 32767, just under one. Scores,
// thresholds and weights of every stage state their Q15 in their names (`_q15`).
#pragma once

#include <cstdint>

namespace earshot {

inline constexpr int32_t kQ15One = 32768;  // 1.0
inline constexpr int32_t kQ15Max = 32767;  // the largest int16 Q15 value (1 - 2^-15)

// A Q15 integer as the value it holds.
constexpr double FromQ15(int64_t q15) { return static_cast<double>(q15) / kQ15One; }
// A score or probability of 0 .. kQ15Max (what a sigmoid table holds) as 0 .. 1, so that its
// largest value reads as 1: the events', the journal's and the CLI's scores.
constexpr double ScoreFromQ15(int64_t q15) { return static_cast<double>(q15) / kQ15Max; }

}  // namespace earshot
