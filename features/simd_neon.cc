#include "features/simd_neon.h"

#if defined(__aarch64__)
#include <arm_neon.h>

namespace earshot::features::neon {

bool Available() { return true; }

namespace {

// (a * w + 2^29) >> 30 for four complex int32 values and Q30 twiddles, as MulQ30 in real_fft.cc:
// Q0 * Q30 products summed exactly in int64 (two lanes per half), rounded back to Q0.
inline void MulQ30x4(int32x4_t ar, int32x4_t ai, int32x4_t wr, int32x4_t wi, int32x4_t& out_r,
                     int32x4_t& out_i) {
  const int64x2_t re_low =
      vmlsl_s32(vmull_s32(vget_low_s32(ar), vget_low_s32(wr)), vget_low_s32(ai), vget_low_s32(wi));
  const int64x2_t re_high = vmlsl_high_s32(vmull_high_s32(ar, wr), ai, wi);
  const int64x2_t im_low =
      vmlal_s32(vmull_s32(vget_low_s32(ar), vget_low_s32(wi)), vget_low_s32(ai), vget_low_s32(wr));
  const int64x2_t im_high = vmlal_high_s32(vmull_high_s32(ar, wi), ai, wr);
  out_r = vcombine_s32(vrshrn_n_s64(re_low, 30), vrshrn_n_s64(re_high, 30));
  out_i = vcombine_s32(vrshrn_n_s64(im_low, 30), vrshrn_n_s64(im_high, 30));
}

}  // namespace

void Radix4Pass(int32_t* re, int32_t* im, size_t m, size_t q, const int32_t* twiddles_q30) {
  const int32_t* w1r = twiddles_q30;
  const int32_t* w1i = w1r + q;
  const int32_t* w2r = w1i + q;
  const int32_t* w2i = w2r + q;
  const int32_t* w3r = w2i + q;
  const int32_t* w3i = w3r + q;
  for (size_t block = 0; block < m; block += 4 * q) {
    int32_t* r = re + block;
    int32_t* i = im + block;
    for (size_t j = 0; j < q; j += 4) {
      int32x4_t t1r, t1i, t2r, t2i, t3r, t3i;
      MulQ30x4(vld1q_s32(r + j + q), vld1q_s32(i + j + q), vld1q_s32(w2r + j), vld1q_s32(w2i + j),
               t1r, t1i);
      MulQ30x4(vld1q_s32(r + j + 2 * q), vld1q_s32(i + j + 2 * q), vld1q_s32(w1r + j),
               vld1q_s32(w1i + j), t2r, t2i);
      MulQ30x4(vld1q_s32(r + j + 3 * q), vld1q_s32(i + j + 3 * q), vld1q_s32(w3r + j),
               vld1q_s32(w3i + j), t3r, t3i);
      const int32x4_t x0r = vld1q_s32(r + j), x0i = vld1q_s32(i + j);
      const int32x4_t y0r = vaddq_s32(x0r, t1r), y0i = vaddq_s32(x0i, t1i);
      const int32x4_t y1r = vsubq_s32(x0r, t1r), y1i = vsubq_s32(x0i, t1i);
      const int32x4_t sr = vaddq_s32(t2r, t3r), si = vaddq_s32(t2i, t3i);
      const int32x4_t dr = vsubq_s32(t2r, t3r), di = vsubq_s32(t2i, t3i);
      vst1q_s32(r + j, vaddq_s32(y0r, sr));
      vst1q_s32(i + j, vaddq_s32(y0i, si));
      vst1q_s32(r + j + 2 * q, vsubq_s32(y0r, sr));
      vst1q_s32(i + j + 2 * q, vsubq_s32(y0i, si));
      vst1q_s32(r + j + q, vaddq_s32(y1r, di));
      vst1q_s32(i + j + q, vsubq_s32(y1i, dr));
      vst1q_s32(r + j + 3 * q, vsubq_s32(y1r, di));
      vst1q_s32(i + j + 3 * q, vaddq_s32(y1i, dr));
    }
  }
}

namespace {

// Lanes 3, 2, 1, 0.
inline int32x4_t Reverse(int32x4_t v) {
  const int32x4_t pairs_swapped = vrev64q_s32(v);
  return vcombine_s32(vget_high_s32(pairs_swapped), vget_low_s32(pairs_swapped));
}

// (x + 2^30) >> 31 of the int64 lanes of a and b, as four int32 (RoundShift(x, 31) and the cast).
inline int32x4_t RoundShift31(int64x2_t low, int64x2_t high) {
  return vcombine_s32(vrshrn_n_s64(low, 31), vrshrn_n_s64(high, 31));
}

}  // namespace

void Split(const int32_t* re, const int32_t* im, size_t m, size_t first, size_t groups,
           const int32_t* split_re, const int32_t* split_im, int32_t* out) {
  for (size_t g = 0; g < groups; ++g) {
    const size_t k = first + 4 * g;
    // p = Z[k..k+3], q = Z[m-k .. m-k-3] (reversed into the same lanes).
    const int32x4_t pr = vld1q_s32(re + k), pi = vld1q_s32(im + k);
    const int32x4_t qr = Reverse(vld1q_s32(re + m - k - 3));
    const int32x4_t qi = Reverse(vld1q_s32(im + m - k - 3));
    // 2E = p + conj q in int64 (|2E| may reach 2^31); 2O = (p - conj q) / i in int32 (|2O| <=
    // 2^30.5, RealFft's bounds), the operand vmull_s32 takes. E scaled to Q30 to meet W O.
    const int64x2_t e2r_low = vshlq_n_s64(vaddl_s32(vget_low_s32(pr), vget_low_s32(qr)), 30);
    const int64x2_t e2r_high = vshlq_n_s64(vaddl_high_s32(pr, qr), 30);
    const int64x2_t e2i_low = vshlq_n_s64(vsubl_s32(vget_low_s32(pi), vget_low_s32(qi)), 30);
    const int64x2_t e2i_high = vshlq_n_s64(vsubl_high_s32(pi, qi), 30);
    const int32x4_t o2r = vaddq_s32(pi, qi), o2i = vsubq_s32(qr, pr);
    const int32x4_t wr = vld1q_s32(split_re + k), wi = vld1q_s32(split_im + k);
    // 2 W^k O[k], Q30: (o2r wr - o2i wi) + i (o2r wi + o2i wr).
    const int64x2_t wo_r_low = vmlsl_s32(vmull_s32(vget_low_s32(o2r), vget_low_s32(wr)),
                                         vget_low_s32(o2i), vget_low_s32(wi));
    const int64x2_t wo_r_high = vmlsl_high_s32(vmull_high_s32(o2r, wr), o2i, wi);
    const int64x2_t wo_i_low = vmlal_s32(vmull_s32(vget_low_s32(o2r), vget_low_s32(wi)),
                                         vget_low_s32(o2i), vget_low_s32(wr));
    const int64x2_t wo_i_high = vmlal_high_s32(vmull_high_s32(o2r, wi), o2i, wr);
    int32x4x2_t x, mirror;
    x.val[0] = RoundShift31(vaddq_s64(e2r_low, wo_r_low), vaddq_s64(e2r_high, wo_r_high));
    x.val[1] = RoundShift31(vaddq_s64(e2i_low, wo_i_low), vaddq_s64(e2i_high, wo_i_high));
    mirror.val[0] =
        Reverse(RoundShift31(vsubq_s64(e2r_low, wo_r_low), vsubq_s64(e2r_high, wo_r_high)));
    mirror.val[1] =
        Reverse(RoundShift31(vsubq_s64(wo_i_low, e2i_low), vsubq_s64(wo_i_high, e2i_high)));
    // Interleaved (re, im) pairs: bins k..k+3 forward, bins m-k-3 .. m-k in memory order.
    vst2q_s32(out + 2 * k, x);
    vst2q_s32(out + 2 * (m - k - 3), mirror);
  }
}

void PowerSpectrum(const int32_t* bins, size_t groups, int shift, uint64_t* power) {
  const int64x2_t right = vdupq_n_s64(-shift);  // vrshlq by -s: (x + 2^(s-1)) >> s, exact
  for (size_t g = 0; g < groups; ++g) {
    const int32x4x2_t v = vld2q_s32(bins + 8 * g);  // val[0]: re of four bins, val[1]: im
    // re^2 + im^2 < 2^63: exact in int64, and the same bits as uint64.
    const int64x2_t low = vmlal_s32(vmull_s32(vget_low_s32(v.val[0]), vget_low_s32(v.val[0])),
                                    vget_low_s32(v.val[1]), vget_low_s32(v.val[1]));
    const int64x2_t high = vmlal_high_s32(vmull_high_s32(v.val[0], v.val[0]), v.val[1], v.val[1]);
    vst1q_u64(power + 4 * g, vrshlq_u64(vreinterpretq_u64_s64(low), right));
    vst1q_u64(power + 4 * g + 2, vrshlq_u64(vreinterpretq_u64_s64(high), right));
  }
}

uint64_t WindowMagnitudes(const int32_t* frame_q8, const int16_t* window_q15, size_t count) {
  uint64x2_t low = vdupq_n_u64(0), high = vdupq_n_u64(0);
  for (size_t n = 0; n < count; n += 4) {
    const int32x4_t x = vld1q_s32(frame_q8 + n);
    const int32x4_t w = vmovl_s16(vld1_s16(window_q15 + n));
    // Q8 * Q15 = Q23, |product| < 2^40 (window.cc): exact in int64, |.| too.
    low = vorrq_u64(low, vreinterpretq_u64_s64(vabsq_s64(vmull_s32(vget_low_s32(x), vget_low_s32(w)))));
    high = vorrq_u64(high, vreinterpretq_u64_s64(vabsq_s64(vmull_high_s32(x, w))));
  }
  const uint64x2_t both = vorrq_u64(low, high);
  return vgetq_lane_u64(both, 0) | vgetq_lane_u64(both, 1);
}

void WindowScale(const int32_t* frame_q8, const int16_t* window_q15, size_t count, int shift_right,
                 int32_t* out) {
  // vrshlq by -s: (x + 2^(s-1)) >> s at full precision (RoundShift) for s > 0; x << -s otherwise.
  const int64x2_t shift = vdupq_n_s64(-shift_right);
  for (size_t n = 0; n < count; n += 4) {
    const int32x4_t x = vld1q_s32(frame_q8 + n);
    const int32x4_t w = vmovl_s16(vld1_s16(window_q15 + n));
    const int64x2_t low = vrshlq_s64(vmull_s32(vget_low_s32(x), vget_low_s32(w)), shift);
    const int64x2_t high = vrshlq_s64(vmull_high_s32(x, w), shift);
    // The even int32 lanes are the int64 lanes' low halves: the cast's bits.
    vst1q_s32(out + n, vuzp1q_s32(vreinterpretq_s32_s64(low), vreinterpretq_s32_s64(high)));
  }
}

namespace {

// Rows a, b, c, d into columns: a = {a0 a1 a2 a3} ... -> a = {a0 b0 c0 d0}, b = {a1 b1 c1 d1} ...
inline void Transpose4(int32x4_t& a, int32x4_t& b, int32x4_t& c, int32x4_t& d) {
  const int64x2_t ab_even = vreinterpretq_s64_s32(vtrn1q_s32(a, b));  // a0 b0 a2 b2
  const int64x2_t ab_odd = vreinterpretq_s64_s32(vtrn2q_s32(a, b));   // a1 b1 a3 b3
  const int64x2_t cd_even = vreinterpretq_s64_s32(vtrn1q_s32(c, d));
  const int64x2_t cd_odd = vreinterpretq_s64_s32(vtrn2q_s32(c, d));
  a = vreinterpretq_s32_s64(vtrn1q_s64(ab_even, cd_even));
  b = vreinterpretq_s32_s64(vtrn1q_s64(ab_odd, cd_odd));
  c = vreinterpretq_s32_s64(vtrn2q_s64(ab_even, cd_even));
  d = vreinterpretq_s32_s64(vtrn2q_s64(ab_odd, cd_odd));
}

}  // namespace

void LoadRadix4First(const int32_t* in, const uint16_t* bit_reverse, size_t m, int32_t* re,
                     int32_t* im) {
  const size_t quarter = m / 4;
  for (size_t c = 0; c < quarter; c += 4) {
    // Samples k = c + l + s m/4 for lanes l < 4 and s < 4 (k's top two bits). Reversed, k sits
    // at 4 b + t: block b = rev(c + l) / 4, t = s's two bits swapped. So one load per s gives
    // x_t of four blocks, in lanes.
    const int32x4x2_t x0 = vld2q_s32(in + 2 * c);                  // s = 0: t = 0
    const int32x4x2_t x1 = vld2q_s32(in + 2 * (c + 2 * quarter));  // s = 2: t = 1
    const int32x4x2_t x2 = vld2q_s32(in + 2 * (c + quarter));      // s = 1: t = 2
    const int32x4x2_t x3 = vld2q_s32(in + 2 * (c + 3 * quarter));  // s = 3: t = 3
    // Butterfly4 of real_fft.cc with every twiddle 1.
    const int32x4_t y0r = vaddq_s32(x0.val[0], x1.val[0]), y0i = vaddq_s32(x0.val[1], x1.val[1]);
    const int32x4_t y1r = vsubq_s32(x0.val[0], x1.val[0]), y1i = vsubq_s32(x0.val[1], x1.val[1]);
    const int32x4_t sr = vaddq_s32(x2.val[0], x3.val[0]), si = vaddq_s32(x2.val[1], x3.val[1]);
    const int32x4_t dr = vsubq_s32(x2.val[0], x3.val[0]), di = vsubq_s32(x2.val[1], x3.val[1]);
    int32x4_t z0r = vaddq_s32(y0r, sr), z1r = vaddq_s32(y1r, di), z2r = vsubq_s32(y0r, sr),
              z3r = vsubq_s32(y1r, di);
    int32x4_t z0i = vaddq_s32(y0i, si), z1i = vsubq_s32(y1i, dr), z2i = vsubq_s32(y0i, si),
              z3i = vaddq_s32(y1i, dr);
    Transpose4(z0r, z1r, z2r, z3r);  // now one block per vector: lanes l = 0, 1, 2, 3
    Transpose4(z0i, z1i, z2i, z3i);
    // Block of lane l starts at rev(c + l) = rev(c) + rev(l): + 0, m/2, m/4, 3m/4.
    const size_t p = bit_reverse[c];
    vst1q_s32(re + p, z0r);
    vst1q_s32(im + p, z0i);
    vst1q_s32(re + p + 2 * quarter, z1r);
    vst1q_s32(im + p + 2 * quarter, z1i);
    vst1q_s32(re + p + quarter, z2r);
    vst1q_s32(im + p + quarter, z2i);
    vst1q_s32(re + p + 3 * quarter, z3r);
    vst1q_s32(im + p + 3 * quarter, z3i);
  }
}

}  // namespace earshot::features::neon

#endif  // __aarch64__
