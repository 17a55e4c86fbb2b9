// The SIMD kernels of the front end (AVX2 on x86-64 where the CPU has it, NEON on aarch64;
// elsewhere both sides take the plain loops) against the plain paths, integer for integer, on
// random inputs at every level and on full-scale ones.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "features/mel_filterbank.h"
#include "features/real_fft.h"
#include "features/window.h"

namespace earshot::features {
namespace {

// The SIMD kernels (NEON on aarch64; elsewhere both sides take the plain loops) against the plain
// path: random frames at every level (from below 2^-21 of full scale, shifted left, to full
// scale, shifted right), constant and alternating full-scale frames, and lengths with a tail.
TEST(Window, SimdAndPlainPathsGiveTheSameBits) {
  for (int length : {400, 403, 512}) {
    Window simd(length, 21, true), plain(length, 21, false);
    std::mt19937 rng(static_cast<unsigned>(length));
    constexpr int32_t kFullScaleQ8 = (1 << 25) - 1;  // Q8 input bound (window.h)
    for (int trial = 0; trial < 30; ++trial) {
      std::vector<int32_t> frame(static_cast<size_t>(length));
      const int32_t limit = trial < 26 ? (1 << trial) - 1 : kFullScaleQ8;
      std::uniform_int_distribution<int32_t> dist(-limit, limit);
      for (size_t n = 0; n < frame.size(); ++n) {
        frame[n] = trial < 27 ? dist(rng) : trial == 27 ? kFullScaleQ8
                 : trial == 28 ? -kFullScaleQ8 : (n % 2 ? -kFullScaleQ8 : kFullScaleQ8);
      }
      std::vector<int32_t> a(512, 7), b(512, 9);
      ASSERT_EQ(simd.Process(frame, a), plain.Process(frame, b)) << length << " " << trial;
      ASSERT_EQ(a, b) << length << " " << trial;
    }
  }
}

class RealFftSimd : public testing::TestWithParam<int> {};

TEST_P(RealFftSimd, SimdAndPlainPathsGiveTheSameBits) {
  const int n = GetParam();
  RealFft simd(n, true), plain(n, false);
  std::mt19937 rng(static_cast<unsigned>(n) + 1);
  const int32_t limit = 1 << simd.max_input_bits();
  std::uniform_int_distribution<int32_t> dist(-limit, limit);
  for (int trial = 0; trial < 23; ++trial) {
    // 20 random inputs, then full scale: +limit (DC), -limit, alternating (Nyquist).
    std::vector<int32_t> in(n);
    for (int i = 0; i < n; ++i) {
      in[i] = trial < 20 ? dist(rng) : trial == 20 ? limit : trial == 21 ? -limit
            : (i % 2 ? -limit : limit);
    }
    std::vector<ComplexInt32> a(n / 2 + 1), b(n / 2 + 1);
    simd.Process(in, a);
    plain.Process(in, b);
    for (int k = 0; k <= n / 2; ++k) {
      ASSERT_EQ(a[k].re, b[k].re) << k;
      ASSERT_EQ(a[k].im, b[k].im) << k;
    }
  }
}

// 128 and 512: log2(N/2) even, the first radix-4 pass fused with the load on aarch64.
INSTANTIATE_TEST_SUITE_P(Sizes, RealFftSimd, testing::Values(16, 64, 128, 256, 512, 1024));

// The power spectrum: random bins, then every bin at full scale.
TEST(MelFilterbank, SimdAndPlainPowerGiveTheSameBits) {
  MelFilterbank simd(40, 20, 7600, 512, 16000, MelScale::kHtk, true),
      plain(40, 20, 7600, 512, 16000, MelScale::kHtk, false);
  std::mt19937 rng(8);
  constexpr int32_t kFull = 1 << 30;  // the FFT's full range
  std::uniform_int_distribution<int32_t> dist(-kFull, kFull);
  for (int trial = 0; trial < 12; ++trial) {
    std::vector<ComplexInt32> spectrum(257);
    for (auto& c : spectrum) {
      c = trial < 10 ? ComplexInt32{dist(rng), dist(rng)}
        : trial == 10 ? ComplexInt32{kFull, kFull} : ComplexInt32{-kFull, -kFull};
    }
    std::vector<uint64_t> a(40), b(40);
    simd.Process(spectrum, a);
    plain.Process(spectrum, b);
    ASSERT_EQ(a, b) << trial;
  }
}

}  // namespace
}  // namespace earshot::features
