#include "features/real_fft.h"

#include <bit>
#include <cmath>
#include <numbers>

#include "features/simd.h"

namespace earshot::features {
namespace {

ComplexInt32 TwiddleQ30(double angle) {
  constexpr double kOneQ30 = 1 << 30;
  return {static_cast<int32_t>(std::lround(std::cos(angle) * kOneQ30)),
          static_cast<int32_t>(std::lround(std::sin(angle) * kOneQ30))};
}

// (a * w) >> 30 for complex a and a Q30 twiddle w: Q0 * Q30 = Q30, rounded back to Q0.
inline void MulQ30(int32_t are, int32_t aim, ComplexInt32 w, int32_t& re, int32_t& im) {
  re = static_cast<int32_t>(RoundShift(int64_t{are} * w.re - int64_t{aim} * w.im, 30));
  im = static_cast<int32_t>(RoundShift(int64_t{are} * w.im + int64_t{aim} * w.re, 30));
}

}  // namespace

RealFft::RealFft(int fft_size, bool allow_simd)
    : n_(fft_size),
      log2_n_(std::countr_zero(static_cast<unsigned>(fft_size))),
      bit_reverse_(fft_size / 2),
      split_q30_(fft_size / 4 + 1),
      re_(fft_size / 2),
      im_(fft_size / 2),
      simd_(allow_simd && simd::Available()) {
  const int m = n_ / 2;
  const int bits = log2_n_ - 1;
  for (int i = 0; i < m; ++i) {
    unsigned r = 0;
    for (int b = 0; b < bits; ++b) r |= ((static_cast<unsigned>(i) >> b) & 1u) << (bits - 1 - b);
    bit_reverse_[i] = static_cast<uint16_t>(r);
  }
  for (int quarter = (bits % 2 == 1) ? 2 : 1; 4 * quarter <= m; quarter *= 4) {
    for (int j = 0; j < quarter; ++j) {
      const double angle = -2 * std::numbers::pi * j / (4 * quarter);
      for (int power = 1; power <= 3; ++power) pass_twiddles_q30_.push_back(TwiddleQ30(power * angle));
    }
    for (int power = 1; power <= 3; ++power) {
      for (int part = 0; part < 2; ++part) {
        for (int j = 0; j < quarter; ++j) {
          const ComplexInt32 w = TwiddleQ30(power * -2 * std::numbers::pi * j / (4 * quarter));
          pass_twiddles_soa_q30_.push_back(part == 0 ? w.re : w.im);
        }
      }
    }
  }
  for (int k = 0; k <= n_ / 4; ++k) {
    split_q30_[k] = TwiddleQ30(-2 * std::numbers::pi * k / n_);
    split_re_q30_.push_back(split_q30_[k].re);
    split_im_q30_.push_back(split_q30_[k].im);
  }
}

// Sizes-2 DFTs of adjacent pairs: the first stage when log2(N/2) is odd (no twiddles).
void RealFft::Radix2Pass() {
  for (size_t i = 0; i < re_.size(); i += 2) {
    const int32_t ar = re_[i], ai = im_[i], br = re_[i + 1], bi = im_[i + 1];
    re_[i] = ar + br;
    im_[i] = ai + bi;
    re_[i + 1] = ar - br;
    im_[i + 1] = ai - bi;
  }
}

// Two radix-2 DIT stages at once: blocks of 4q combine four DFTs of size q. With w = W_4q^j,
// t1 = w^2 x1, t2 = w x2, t3 = w^3 x3 (x1 is the second size-q DFT in bit-reversed order):
//   z0 = (x0 + t1) + (t2 + t3)    z2 = (x0 + t1) - (t2 + t3)
//   z1 = (x0 - t1) - i (t2 - t3)  z3 = (x0 - t1) + i (t2 - t3)
namespace {

// The radix-4 combination of x0 and the twiddled t1, t2, t3 (see Radix4Pass), in place.
inline void Butterfly4(int32_t* r, int32_t* i, size_t j, size_t q, int32_t t1r, int32_t t1i,
                       int32_t t2r, int32_t t2i, int32_t t3r, int32_t t3i) {
  const int32_t y0r = r[j] + t1r, y0i = i[j] + t1i;
  const int32_t y1r = r[j] - t1r, y1i = i[j] - t1i;
  const int32_t sr = t2r + t3r, si = t2i + t3i;
  const int32_t dr = t2r - t3r, di = t2i - t3i;
  r[j] = y0r + sr;
  i[j] = y0i + si;
  r[j + 2 * q] = y0r - sr;
  i[j + 2 * q] = y0i - si;
  r[j + q] = y1r + di;  // - i (dr + i di) = di - i dr
  i[j + q] = y1i - dr;
  r[j + 3 * q] = y1r - di;
  i[j + 3 * q] = y1i + dr;
}

}  // namespace

void RealFft::Radix4Pass(int quarter, const ComplexInt32* twiddles_q30) {
  const size_t m = re_.size();
  const auto q = static_cast<size_t>(quarter);
  for (size_t block = 0; block < m; block += 4 * q) {
    int32_t* r = &re_[block];
    int32_t* i = &im_[block];
    // j = 0: every twiddle is 1, no products (a third of all butterflies for N = 512).
    Butterfly4(r, i, 0, q, r[q], i[q], r[2 * q], i[2 * q], r[3 * q], i[3 * q]);
    for (size_t j = 1; j < q; ++j) {
      const ComplexInt32* w = &twiddles_q30[3 * j];
      int32_t t1r, t1i, t2r, t2i, t3r, t3i;
      MulQ30(r[j + q], i[j + q], w[1], t1r, t1i);
      MulQ30(r[j + 2 * q], i[j + 2 * q], w[0], t2r, t2i);
      MulQ30(r[j + 3 * q], i[j + 3 * q], w[2], t3r, t3i);
      Butterfly4(r, i, j, q, t1r, t1i, t2r, t2i, t3r, t3i);
    }
  }
}

// With Z = FFT(z), z[n] = x[2n] + i x[2n+1], m = N/2: E[k] = (Z[k] + conj Z[m-k]) / 2 is the even
// samples' DFT and O[k] = (Z[k] - conj Z[m-k]) / 2i the odd ones'; X[k] = E[k] + W^k O[k] and
// X[m-k] = conj(E[k]) - conj(W^k O[k]) ... computed from the same pair. Doubled sums in 64 bits,
// halved once by the final rounding shift (>> 31 = Q30 product >> 30, then / 2).
void RealFft::Split(std::span<ComplexInt32> out) const {
  const size_t m = re_.size();
  out[0] = {re_[0] + im_[0], 0};  // E[0] + O[0]
  out[m] = {re_[0] - im_[0], 0};  // E[0] - O[0]
  size_t k = 1;
  if (simd_ && m / 2 >= 4) {  // groups of four bins while they stay below m/2
    const size_t groups = (m / 2 - 1) / 4;
    simd::Split(re_.data(), im_.data(), m, 1, groups, split_re_q30_.data(), split_im_q30_.data(),
                reinterpret_cast<int32_t*>(out.data()));
    k += 4 * groups;
  }
  for (; k <= m / 2; ++k) {
    const int64_t pr = re_[k], pi = im_[k], qr = re_[m - k], qi = im_[m - k];
    const int64_t e2r = pr + qr, e2i = pi - qi;  // 2E[k] = p + conj q
    const int64_t o2r = pi + qi, o2i = qr - pr;  // 2O[k] = (p - conj q) / i
    // W^k for k <= m/2 from the quarter table: W^k = (c, s) with c = cos, s = -sin.
    const ComplexInt32 w = k <= m / 2 ? split_q30_[k] : ComplexInt32{};
    const int64_t wo_r = o2r * w.re - o2i * w.im;  // 2 W^k O[k], Q30
    const int64_t wo_i = o2r * w.im + o2i * w.re;
    out[k] = {static_cast<int32_t>(RoundShift((e2r << 30) + wo_r, 31)),
              static_cast<int32_t>(RoundShift((e2i << 30) + wo_i, 31))};
    // X[m-k] = conj(E[k]) - conj(W^k O[k]) since E[m-k] = conj E[k], O[m-k] = conj O[k], and
    // W^(m-k) = -conj W^k.
    out[m - k] = {static_cast<int32_t>(RoundShift((e2r << 30) - wo_r, 31)),
                  static_cast<int32_t>(RoundShift(-(e2i << 30) + wo_i, 31))};
  }
}

void RealFft::Process(std::span<const int32_t> in, std::span<ComplexInt32> out) {
  const size_t m = re_.size();
  const int bits = log2_n_ - 1;
  int quarter = 1;
  const ComplexInt32* twiddles = pass_twiddles_q30_.data();
  const int32_t* twiddles_soa = pass_twiddles_soa_q30_.data();
#if defined(__aarch64__)
  if (simd_ && bits % 2 == 0 && m >= 16) {  // the load and the first pass (q = 1) in one
    simd::LoadRadix4First(in.data(), bit_reverse_.data(), m, re_.data(), im_.data());
    quarter = 4;
    twiddles += 3;
    twiddles_soa += 6;
  }
#endif
  if (quarter == 1) {
    for (size_t k = 0; k < m; ++k) {
      const size_t r = bit_reverse_[k];
      re_[r] = in[2 * k];
      im_[r] = in[2 * k + 1];
    }
    if (bits % 2 == 1) {
      Radix2Pass();
      quarter = 2;
    }
  }
  for (; 4 * static_cast<size_t>(quarter) <= m; quarter *= 4) {
    if (simd_ && quarter % 4 == 0) {
      simd::Radix4Pass(re_.data(), im_.data(), m, static_cast<size_t>(quarter), twiddles_soa);
    } else {
      Radix4Pass(quarter, twiddles);
    }
    twiddles += 3 * quarter;
    twiddles_soa += 6 * quarter;
  }
  Split(out);
}

}  // namespace earshot::features
