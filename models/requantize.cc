#include "models/requantize.h"

#include <algorithm>
#include <cstdint>

#if defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace earshot::models {
namespace {

// z saturated to int32 first (as the NEON kernel's narrowing): beyond it the result is 127 or the
// floor either way, and z * slope_q16 stays inside int64.
int8_t Activate(int64_t z, const RequantizeParams& p) {
  z = std::clamp<int64_t>(z, INT32_MIN, INT32_MAX);
  const int64_t leaky = (z * p.slope_q16 + (int64_t{1} << 15)) >> 16;  // rounded
  z = std::max<int64_t>(z < 0 ? leaky : z, p.floor);
  return static_cast<int8_t>(std::min<int64_t>(z, 127));
}

}  // namespace

void RequantizeRowPlain(const int32_t* acc, size_t n, const RequantizeParams& p, int8_t* out) {
  for (size_t o = 0; o < n; ++o)
    out[o] = Activate(Requantize(acc[o] + p.bias[o], p.mult[o], p.shift[o]), p);
}

#if defined(__aarch64__)

namespace {

// Two lanes of z = (a * mult + 2^(shift - 1)) >> shift in int64: vshlq_s64 by a negative count is
// the arithmetic shift right (the same floor as C++'s >> of a negative int64).
inline int64x2_t RequantizeLanes(int32x2_t a, int32x2_t mult, int32x2_t shift) {
  const int64x2_t s = vmovl_s32(shift);
  const int64x2_t half = vshlq_s64(vdupq_n_s64(1), vsubq_s64(s, vdupq_n_s64(1)));
  return vshlq_s64(vaddq_s64(vmull_s32(a, mult), half), vnegq_s64(s));
}

// Four lanes of z, saturated to int32 (a z beyond int32 ends at 127 or at the floor either way:
// saturating changes nothing after the clamp), through the activation.
inline int32x4_t ActivateLanes(int32x4_t a, int32x4_t mult, int32x4_t shift, int32x2_t slope,
                               int32x4_t floor) {
  const int32x4_t z = vcombine_s32(
      vqmovn_s64(RequantizeLanes(vget_low_s32(a), vget_low_s32(mult), vget_low_s32(shift))),
      vqmovn_s64(RequantizeLanes(vget_high_s32(a), vget_high_s32(mult), vget_high_s32(shift))));
  const int64x2_t round = vdupq_n_s64(int64_t{1} << 15);
  const int32x4_t leaky = vcombine_s32(
      vmovn_s64(vshrq_n_s64(vaddq_s64(vmull_s32(vget_low_s32(z), slope), round), 16)),
      vmovn_s64(vshrq_n_s64(vaddq_s64(vmull_s32(vget_high_s32(z), slope), round), 16)));
  const int32x4_t activated = vbslq_s32(vcltzq_s32(z), leaky, z);
  return vminq_s32(vmaxq_s32(activated, floor), vdupq_n_s32(127));
}

}  // namespace

void RequantizeRowNeon(const int32_t* acc, size_t n, const RequantizeParams& p, int8_t* out) {
  const int32x2_t slope = vdup_n_s32(p.slope_q16);
  const int32x4_t floor = vdupq_n_s32(p.floor);
  size_t o = 0;
  for (; o + 8 <= n; o += 8) {
    int32x4_t z[2];
    for (size_t h = 0; h < 2; ++h) {
      const size_t i = o + 4 * h;
      z[h] = ActivateLanes(vaddq_s32(vld1q_s32(acc + i), vld1q_s32(p.bias + i)),
                           vld1q_s32(p.mult + i), vld1q_s32(p.shift + i), slope, floor);
    }
    // In [-128, 127]: the narrowing keeps every value.
    vst1_s8(out + o, vmovn_s16(vcombine_s16(vmovn_s32(z[0]), vmovn_s32(z[1]))));
  }
  RequantizeRowPlain(acc + o, n - o, {p.bias + o, p.mult + o, p.shift + o, p.slope_q16, p.floor},
                     out + o);
}

void RequantizeRow(const int32_t* acc, size_t n, const RequantizeParams& p, int8_t* out) {
  RequantizeRowNeon(acc, n, p, out);
}

#else  // other CPUs: the plain loop

void RequantizeRowNeon(const int32_t* acc, size_t n, const RequantizeParams& p, int8_t* out) {
  RequantizeRowPlain(acc, n, p, out);
}

void RequantizeRow(const int32_t* acc, size_t n, const RequantizeParams& p, int8_t* out) {
  RequantizeRowPlain(acc, n, p, out);
}

#endif

}  // namespace earshot::models
