#include "features/real_fft.h"

#include <bit>
#include <cmath>
#include <numbers>

namespace earshot::features {
namespace {

ComplexInt32 TwiddleQ30(double angle) {
  constexpr double kOneQ30 = 1 << 30;
  return {static_cast<int32_t>(std::lround(std::cos(angle) * kOneQ30)),
          static_cast<int32_t>(std::lround(std::sin(angle) * kOneQ30))};
}

// (a * w) >> 30 for a complex a and a Q30 twiddle w: Q0 * Q30 = Q30, rounded back to Q0.
inline ComplexInt32 MulQ30(ComplexInt32 a, ComplexInt32 w) {
  const int64_t re = int64_t{a.re} * w.re - int64_t{a.im} * w.im;
  const int64_t im = int64_t{a.re} * w.im + int64_t{a.im} * w.re;
  return {static_cast<int32_t>(RoundShift(re, 30)), static_cast<int32_t>(RoundShift(im, 30))};
}

}  // namespace

RealFft::RealFft(int fft_size)
    : n_(fft_size),
      log2_n_(std::countr_zero(static_cast<unsigned>(fft_size))),
      bit_reverse_(fft_size / 2),
      twiddle_q30_(fft_size / 4),
      split_q30_(fft_size / 2 + 1),
      work_(fft_size / 2) {
  const int half = n_ / 2;
  const int half_bits = log2_n_ - 1;
  for (int i = 0; i < half; ++i) {
    unsigned r = 0;
    for (int b = 0; b < half_bits; ++b) r |= ((static_cast<unsigned>(i) >> b) & 1u) << (half_bits - 1 - b);
    bit_reverse_[i] = static_cast<uint16_t>(r);
  }
  for (int k = 0; k < n_ / 4; ++k) twiddle_q30_[k] = TwiddleQ30(-2 * std::numbers::pi * k / half);
  for (int k = 0; k <= half; ++k) split_q30_[k] = TwiddleQ30(-2 * std::numbers::pi * k / n_);
}

void RealFft::ComplexFft() {
  const int m = n_ / 2;
  for (int size = 2; size <= m; size <<= 1) {
    const int half = size / 2;
    const int step = m / size;  // twiddle stride: e^(-2 pi i j / size) = twiddle_q30_[j * step]
    for (int start = 0; start < m; start += size) {
      ComplexInt32* a = &work_[start];
      ComplexInt32* b = &work_[start + half];
      for (int j = 0; j < half; ++j) {
        const ComplexInt32 t = j == 0 ? b[j] : MulQ30(b[j], twiddle_q30_[j * step]);
        b[j] = {a[j].re - t.re, a[j].im - t.im};
        a[j] = {a[j].re + t.re, a[j].im + t.im};
      }
    }
  }
}

void RealFft::Process(std::span<const int32_t> in, std::span<ComplexInt32> out) {
  const int m = n_ / 2;
  // Pack even samples as real parts and odd ones as imaginary parts, in bit-reversed order.
  for (int i = 0; i < m; ++i) {
    const int r = bit_reverse_[i];
    work_[r] = {in[2 * i], in[2 * i + 1]};
  }
  ComplexFft();
  // Split: with Z = FFT(z), E[k] = (Z[k] + conj Z[m-k]) / 2 is the even samples' DFT and
  // O[k] = (Z[k] - conj Z[m-k]) / 2i the odd ones'; X[k] = E[k] + W^k O[k], W = e^(-2 pi i / N).
  // The sums are kept doubled in 64 bits and halved once at the end.
  for (int k = 0; k <= m / 2; ++k) {
    const ComplexInt32 zk = work_[k == m ? 0 : k];
    const ComplexInt32 zc = work_[k == 0 ? 0 : m - k];
    for (int pass = 0; pass < (k == 0 || 2 * k == m ? 1 : 2); ++pass) {
      // pass 0 gives X[k]; pass 1 gives X[m-k] from the same two values with roles swapped.
      const ComplexInt32 p = pass == 0 ? zk : zc;
      const ComplexInt32 q = pass == 0 ? zc : zk;
      const int bin = pass == 0 ? k : m - k;
      const int64_t e2_re = int64_t{p.re} + q.re;   // 2 E = p + conj q
      const int64_t e2_im = int64_t{p.im} - q.im;
      const int64_t o2_re = int64_t{p.im} + q.im;   // 2 O = (p - conj q) / i
      const int64_t o2_im = int64_t{q.re} - p.re;
      const ComplexInt32 w = split_q30_[bin];
      // 2 X = 2E + W * 2O; (Q0 * Q30) >> 31 folds the final halving into the rounding shift.
      const int64_t re = (e2_re << 30) + o2_re * w.re - o2_im * w.im;
      const int64_t im = (e2_im << 30) + o2_re * w.im + o2_im * w.re;
      out[bin] = {static_cast<int32_t>(RoundShift(re, 31)), static_cast<int32_t>(RoundShift(im, 31))};
    }
  }
  // X[N/2] (Nyquist): E[0] - O[0], real.
  const ComplexInt32 z0 = work_[0];
  out[m] = {z0.re - z0.im, 0};
}

}  // namespace earshot::features
