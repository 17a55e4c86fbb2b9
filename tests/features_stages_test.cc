// Per-stage tests of the fixed-point front end: exact integers on tiny configurations, and each
// stage against its floating-point definition.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>
#include <random>
#include <vector>

#include "features/dc_preemphasis.h"
#include "features/dct.h"
#include "features/front_end.h"
#include "features/log_scale.h"
#include "features/mean_norm.h"
#include "features/mel_filterbank.h"
#include "features/noise_suppression.h"
#include "features/real_fft.h"
#include "features/window.h"

namespace earshot::features {
namespace {

TEST(DcPreEmphasis, GoldenIntegers) {
  DcPreEmphasis stage(32604, 31785);
  const std::vector<int16_t> in = {0, 1000, 1000, 1000, -32768, 32767, 5, 0};
  std::vector<int32_t> out(in.size());
  stage.Process(in, out);
  // By hand for n = 2: y = 0 + 0.995 * 1000 = 995, p = 995 - 0.97 * 1000 = 25 -> 6400 in Q8,
  // 6399 with the Q15 coefficients.
  EXPECT_EQ(out, (std::vector<int32_t>{0, 256000, 6399, 6366, -8638273, 16567200, -8176460, -1347}));
}

TEST(DcPreEmphasis, MatchesFloatRecursionAndIsStreaming) {
  std::mt19937 rng(1);
  std::uniform_int_distribution<int> dist(-32768, 32767);
  std::vector<int16_t> in(4000);
  for (auto& v : in) v = static_cast<int16_t>(dist(rng));
  DcPreEmphasis whole(32604, 31785), chunked(32604, 31785);
  std::vector<int32_t> a(in.size()), b(in.size());
  whole.Process(in, a);
  for (size_t i = 0; i < in.size(); i += 160) {
    chunked.Process(std::span(in).subspan(i, 160), std::span(b).subspan(i, 160));
  }
  EXPECT_EQ(a, b);
  double x_prev = 0, y_prev = 0, max_err = 0;
  for (size_t n = 0; n < in.size(); ++n) {
    const double y = in[n] - x_prev + (32604 / 32768.0) * y_prev;
    const double p = y - (31785 / 32768.0) * y_prev;
    max_err = std::max(max_err, std::abs(p - a[n] / 256.0));
    x_prev = in[n];
    y_prev = y;
  }
  EXPECT_LT(max_err, 0.05);  // in int16 LSBs
}

TEST(Window, BlockScalingBoundsAndExponent) {
  Window window(8, 21);
  std::vector<int32_t> frame_q8 = {256, 512, -768, 1024, 0, 0, 0, 256};
  std::vector<int32_t> fft_in(16, 99);
  const int e = window.Process(frame_q8, fft_in);
  int32_t max_abs = 0;
  for (int32_t v : fft_in) max_abs = std::max(max_abs, std::abs(v));
  EXPECT_GE(max_abs, 1 << 20);
  EXPECT_LE(max_abs, 1 << 21);
  for (size_t n = 8; n < 16; ++n) EXPECT_EQ(fft_in[n], 0);
  // fft_in = x * w * 2^e with x in int16 units.
  for (size_t n = 0; n < 8; ++n) {
    const double expected = frame_q8[n] / 256.0 * window.weights_q15()[n] / 32768.0;
    EXPECT_NEAR(fft_in[n] / std::pow(2.0, e), expected, 1e-5) << n;
  }
  EXPECT_EQ(window.weights_q15(),
            (std::vector<int16_t>{0, 4799, 16384, 27969, 32767, 27969, 16384, 4799}));
}

TEST(Window, SilenceIsFlagged) {
  Window window(8, 21);
  std::vector<int32_t> zeros(8, 0), fft_in(8, 5);
  EXPECT_EQ(window.Process(zeros, fft_in), Window::kSilent);
  for (int32_t v : fft_in) EXPECT_EQ(v, 0);
}

std::vector<std::complex<double>> Dft(const std::vector<int32_t>& x) {
  const size_t n = x.size();
  std::vector<std::complex<double>> out(n / 2 + 1);
  for (size_t k = 0; k <= n / 2; ++k) {
    for (size_t t = 0; t < n; ++t) {
      out[k] += static_cast<double>(x[t]) *
                std::polar(1.0, -2 * std::numbers::pi * static_cast<double>(k * t) / static_cast<double>(n));
    }
  }
  return out;
}

TEST(RealFft, GoldenIntegersSize16) {
  RealFft fft(16);
  const std::vector<int32_t> in = {1000, -2000, 3000, 0, 5, 7, -9, 11, 13, 17, 19, 23, 29, 31, 37,
                                   -100000};
  std::vector<ComplexInt32> out(9);
  fft.Process(in, out);
  const auto dft = Dft(in);
  for (size_t k = 0; k < out.size(); ++k) {
    EXPECT_NEAR(out[k].re, dft[k].real(), 1.0) << k;
    EXPECT_NEAR(out[k].im, dft[k].imag(), 1.0) << k;
  }
  EXPECT_EQ(out[0].re, -97817);  // the sum of the inputs, exactly
  EXPECT_EQ(out[0].im, 0);
  EXPECT_EQ(out[8].re, 106005);  // the alternating sum, exactly
}

class RealFftSizes : public testing::TestWithParam<int> {};

TEST_P(RealFftSizes, MatchesDftAtFullInputRange) {
  const int n = GetParam();
  RealFft fft(n);
  const int32_t limit = (1 << fft.max_input_bits());
  std::mt19937 rng(static_cast<unsigned>(n));
  std::uniform_int_distribution<int32_t> dist(-limit, limit);
  for (int trial = 0; trial < 3; ++trial) {
    std::vector<int32_t> in(n);
    // trial 0: random; 1: all at +limit (DC, the largest growth); 2: alternating (Nyquist).
    for (int i = 0; i < n; ++i) in[i] = trial == 0 ? dist(rng) : trial == 1 ? limit : (i % 2 ? -limit : limit);
    std::vector<ComplexInt32> out(n / 2 + 1);
    fft.Process(in, out);
    const auto dft = Dft(in);
    for (int k = 0; k <= n / 2; ++k) {
      // Rounding of log2(n) stages of Q30 products: a few LSB at most.
      ASSERT_NEAR(out[k].re, dft[k].real(), 4.0 + n / 64.0) << "n=" << n << " k=" << k;
      ASSERT_NEAR(out[k].im, dft[k].imag(), 4.0 + n / 64.0) << "n=" << n << " k=" << k;
    }
  }
}

// Sizes from 16 to 1024, log2(N/2) odd and even.
INSTANTIATE_TEST_SUITE_P(Sizes, RealFftSizes, testing::Values(16, 64, 128, 256, 512, 1024));

TEST(MelFilterbank, TrianglesCoverTheRangeWithPeakOne) {
  const auto bands = MelBands(40, 20, 7600, 512, 16000);
  ASSERT_EQ(bands.size(), 40u);
  for (size_t b = 0; b < bands.size(); ++b) {
    double peak = 0;
    for (double w : bands[b].weights) peak = std::max(peak, w);
    EXPECT_GT(peak, 0.5) << b;
    EXPECT_LE(peak, 1.0) << b;
    if (b > 0) {
      EXPECT_GE(bands[b].first_bin, bands[b - 1].first_bin) << b;
    }
  }
  const auto last_bin = bands.back().first_bin + static_cast<int>(bands.back().weights.size());
  EXPECT_LE(last_bin * 16000.0 / 512, 7600 + 31.25);
}

TEST(MelFilterbank, GoldenIntegers) {
  MelFilterbank mel(3, 0, 8000, 16, 16000);
  std::vector<ComplexInt32> spectrum(9);
  for (int k = 0; k < 9; ++k) spectrum[k] = {(k + 1) << 20, -(k << 19)};
  std::vector<uint64_t> energy(3);
  mel.Process(spectrum, energy);
  EXPECT_EQ(energy, (std::vector<uint64_t>{6221058801664ull, 40056895045632ull, 260424251473920ull}));
}

TEST(MelFilterbank, MatchesFloatWeightsOnPower) {
  MelFilterbank mel(8, 50, 7000, 64, 16000);
  std::vector<ComplexInt32> spectrum(33);
  std::mt19937 rng(5);
  std::uniform_int_distribution<int32_t> dist(-(1 << 24), 1 << 24);
  for (auto& c : spectrum) c = {dist(rng), dist(rng)};
  std::vector<uint64_t> energy(8);
  mel.Process(spectrum, energy);
  const auto bands = MelBands(8, 50, 7000, 64, 16000);
  for (size_t b = 0; b < bands.size(); ++b) {
    double expected = 0;
    for (size_t i = 0; i < bands[b].weights.size(); ++i) {
      const ComplexInt32 c = spectrum[static_cast<size_t>(bands[b].first_bin) + i];
      expected += bands[b].weights[i] * (static_cast<double>(c.re) * c.re + static_cast<double>(c.im) * c.im);
    }
    // energy = sum w_q15 * (|X|^2 >> 14) = expected * 2^15 / 2^14, within the Q15 weights' rounding.
    EXPECT_NEAR(static_cast<double>(energy[b]) / 2.0 / expected, 1.0, 1e-4) << b;
  }
}

TEST(LogScale, Log2IsExactAtPowersOfTwoAndCloseElsewhere) {
  LogScale log(200.0);
  for (int k = 0; k < 64; ++k) EXPECT_EQ(log.Log2Q16(uint64_t{1} << k), int64_t{k} * 65536);
  std::mt19937_64 rng(3);
  for (int i = 0; i < 10000; ++i) {
    const uint64_t v = rng() >> (rng() % 63);
    if (v == 0) continue;
    EXPECT_NEAR(static_cast<double>(log.Log2Q16(v)) / 65536.0, std::log2(static_cast<double>(v)),
                5e-5) << v;
  }
}

// The table rule, bit for bit, at every leading-bit position: the 16 bits below the leading one
// (shifted down from above bit 16, up from below it) pick a segment and a place in it.
TEST(LogScale, Log2FollowsTheTableRuleAtEveryBitWidth) {
  LogScale log(200.0);
  std::mt19937_64 rng(5);
  for (int msb = 0; msb < 64; ++msb) {
    const uint64_t top = uint64_t{1} << msb;
    for (int i = 0; i < 200; ++i) {
      const uint64_t v = i == 0 ? top : i == 1 ? top | (top - 1) : top | (rng() & (top - 1));
      const uint32_t frac_q16 = (msb >= 16 ? static_cast<uint32_t>(v >> (msb - 16))
                                           : static_cast<uint32_t>(v << (16 - msb))) & 0xFFFF;
      const int64_t lo = std::lround(std::log2(1.0 + (frac_q16 >> 8) / 256.0) * 65536.0);
      const int64_t hi = std::lround(std::log2(1.0 + ((frac_q16 >> 8) + 1) / 256.0) * 65536.0);
      const int64_t between = ((hi - lo) * (frac_q16 & 0xFF) + 128) >> 8;  // rounded
      ASSERT_EQ(log.Log2Q16(v), int64_t{msb} * 65536 + lo + between) << v;
    }
  }
}

TEST(LogScale, FloorForSilenceAndZeroEnergy) {
  LogScale log(200.0);
  std::vector<uint64_t> energy = {0, 1, 1ull << 40};
  std::vector<int16_t> db(3);
  log.Process(energy, Window::kSilent, db);
  for (int16_t v : db) EXPECT_EQ(v, LogScale::kFloorDbQ8);
  log.Process(energy, 10, db);
  EXPECT_EQ(db[0], LogScale::kFloorDbQ8);
  EXPECT_EQ(db[1], LogScale::kFloorDbQ8);  // far below -100 dB
}

TEST(LogScale, FloorIsConfigurable) {
  const LogScale log(200.0, -127 * 256);
  std::vector<uint64_t> energy = {0, 1, 1ull << 8};
  std::vector<int16_t> db(3);
  log.Process(energy, 0, db);
  EXPECT_EQ(db[0], -127 * 256);
  EXPECT_EQ(db[1], -127 * 256);  // -133 dB
  EXPECT_LT(db[2], -100 * 256);  // under the default floor, above this one
  EXPECT_GT(db[2], -127 * 256);
}

TEST(NoiseSuppression, LogAddAndSubAreClose) {
  const NoiseSuppression ns(1, LogScale::kFloorDbQ8);
  auto exact = [](double a, double b, int sign) {
    return 10.0 * std::log10(std::pow(10.0, a / 10) + sign * std::pow(10.0, b / 10));
  };
  for (double a = -90; a <= 0; a += 7.3) {
    for (double d = 0.1; d < 60; d *= 1.7) {
      const auto aq = static_cast<int32_t>(std::lround(a * 4096));
      const auto bq = static_cast<int32_t>(std::lround((a - d) * 4096));
      const double a_db = aq / 4096.0, b_db = bq / 4096.0;
      EXPECT_NEAR(ns.LogAdd(aq, bq) / 4096.0, exact(a_db, b_db, 1), 0.01) << a << " " << d;
      EXPECT_NEAR(ns.LogAdd(bq, aq) / 4096.0, exact(a_db, b_db, 1), 0.01);
      // Near d = 0 the difference falls steeply: within 0.1 dB from d = 0.5 dB up.
      if (d >= 0.5) {
        EXPECT_NEAR(ns.LogSub(aq, bq) / 4096.0, exact(a_db, b_db, -1), 0.1);
      }
    }
  }
  EXPECT_LT(ns.LogSub(0, 0), -1000 * 4096);  // equal powers: nothing left
}

// The same equations on linear powers in double precision (the header's list).
std::vector<double> ReferenceSuppression(const std::vector<std::vector<double>>& frames_db) {
  const size_t bands = frames_db[0].size();
  std::vector<double> power(bands), noise(bands), floor(bands), peak(bands, 0.0), gain(bands);
  std::vector<double> out;
  auto envelope = [](double in, double env) {
    return in >= env ? 0.999 * env + 0.001 * in : 0.5 * env + 0.5 * in;
  };
  for (size_t t = 0; t < frames_db.size(); ++t) {
    std::vector<double> p(bands);
    for (size_t b = 0; b < bands; ++b) p[b] = std::pow(10.0, frames_db[t][b] / 10);
    for (size_t b = 0; b < bands; ++b) {
      if (t == 0) power[b] = noise[b] = p[b], floor[b] = p[b] / 20;
      power[b] = 0.7 * power[b] + 0.3 * p[b];
      noise[b] = envelope(power[b], noise[b]);
      double signal = std::max(power[b] - noise[b], 0.0);
      floor[b] = envelope(signal, floor[b]);
      const double in = signal;
      peak[b] *= 0.85;
      if (signal < 0.85 * peak[b]) signal = 0.15 * peak[b];
      peak[b] = std::max(peak[b], in);
      gain[b] = std::clamp(std::max(signal, floor[b]) / power[b], 1.0 / 20, 20.0);
    }
    for (size_t b = 0; b < bands; ++b) {
      const size_t first = b >= 4 ? b - 4 : 0, last = std::min(bands - 1, b + 4);
      double sum = 0;
      for (size_t j = first; j <= last; ++j) sum += gain[j];
      const double mean = sum / static_cast<double>(last - first + 1);
      out.push_back(std::max(-100.0, frames_db[t][b] + 10 * std::log10(mean)));
    }
  }
  return out;
}

TEST(NoiseSuppression, MatchesFloatReferenceAndSuppressesSteadyNoise) {
  // 12 bands: 3 s of noise at -60 dB (+-3 dB), 0.5 s of a -25 dB "vowel", 1 s of noise again.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> jitter(-3.0, 3.0);
  std::vector<std::vector<double>> frames;
  for (int t = 0; t < 450; ++t) {
    std::vector<double> f(12);
    for (auto& v : f) v = (t >= 300 && t < 350 ? -25.0 : -60.0) + jitter(rng);
    frames.push_back(f);
  }
  NoiseSuppression ns(12, LogScale::kFloorDbQ8);
  const std::vector<double> reference = ReferenceSuppression(frames);
  double noise_in = 0, noise_out = 0, speech_in = 0, speech_out = 0, max_diff = 0;
  for (size_t t = 0; t < frames.size(); ++t) {
    std::vector<int16_t> db_q8;
    for (double v : frames[t]) db_q8.push_back(static_cast<int16_t>(std::lround(v * 256)));
    ns.Process(db_q8);
    for (size_t b = 0; b < 12; ++b) {
      const double diff = std::abs(db_q8[b] / 256.0 - reference[t * 12 + b]);
      max_diff = std::max(max_diff, diff);
      if (t >= 200 && t < 300) noise_in += frames[t][b], noise_out += db_q8[b] / 256.0;
      if (t >= 310 && t < 350) speech_in += frames[t][b], speech_out += db_q8[b] / 256.0;
    }
  }
  EXPECT_LT(max_diff, 0.05);  // dB: the tables' interpolation and Q8 rounding
  EXPECT_LT((noise_out - noise_in) / 1200, -5.0);  // steady noise: at least 5 dB down
  EXPECT_GT((speech_out - speech_in) / 480, -2.0);  // the vowel: within 2 dB
  ns.Reset();  // a new stream starts its estimates afresh
  std::vector<int16_t> first(12, -60 * 256);
  ns.Process(first);
  EXPECT_NEAR(first[0] / 256.0, ReferenceSuppression({std::vector<double>(12, -60.0)})[0], 0.3);
}

TEST(Dct, OrthonormalAndGolden) {
  Dct dct(4, 3, 0);
  const std::vector<int16_t> flat = {256, 256, 256, 256};  // 1 dB in every band
  std::vector<int32_t> out(3);
  dct.Process(flat, out);
  EXPECT_EQ(out, (std::vector<int32_t>{512, 0, 0}));  // c0 = sqrt(1/4) * 4 * 1 dB = 2 dB
  const std::vector<int16_t> ramp = {-2560, 0, 2560, 5120};
  dct.Process(ramp, out);
  EXPECT_EQ(out, (std::vector<int32_t>{2560, -5710, 0}));
  const auto m = DctMatrix(4, 3, 0);
  EXPECT_NEAR(-5710 / 256.0,
              (m[4] * -10 + m[5] * 0 + m[6] * 10 + m[7] * 20), 0.01);
}

TEST(Dct, LifterScalesCoefficients) {
  const auto plain = DctMatrix(8, 4, 0);
  const auto lifted = DctMatrix(8, 4, 22);
  EXPECT_DOUBLE_EQ(lifted[0], plain[0]);
  EXPECT_NEAR(lifted[8] / plain[8], 1 + 11 * std::sin(std::numbers::pi / 22), 1e-12);
}

// FrontEnd runs the DCT when mfcc_q8() is read (without mean normalisation): each frame's
// cepstra are still the DCT of that frame's log-mel, read after every frame or after some.
TEST(FrontEnd, CepstraAreTheDctOfTheLogMelWhenReadLate) {
  FrontEndConfig config;
  auto every = FrontEnd::Create(config), some = FrontEnd::Create(config);
  ASSERT_TRUE(every.ok() && some.ok());
  const Dct dct(config.mel_bands, config.mfcc_count, config.lifter);
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> dist(-20000, 20000);
  std::vector<int16_t> hop(static_cast<size_t>(config.hop_samples()));
  std::vector<int32_t> expected(static_cast<size_t>(config.mfcc_count));
  const std::span<const int32_t> before = (*every)->mfcc_q8();  // zeros before the first frame
  EXPECT_EQ(std::vector<int32_t>(before.begin(), before.end()), expected);
  for (int frame = 0; frame < 12; ++frame) {
    for (auto& v : hop) v = static_cast<int16_t>(dist(rng));
    (*every)->Process(hop);
    (*some)->Process(hop);
    dct.Process((*every)->logmel_db_q8(), expected);
    const std::span<const int32_t> mfcc = (*every)->mfcc_q8();
    ASSERT_EQ(std::vector<int32_t>(mfcc.begin(), mfcc.end()), expected) << frame;
    if (frame % 5 == 4) {
      const std::span<const int32_t> late = (*some)->mfcc_q8();
      ASSERT_EQ(std::vector<int32_t>(late.begin(), late.end()), expected) << frame;
    }
  }
}

TEST(RunningMeanNorm, ConvergesToZeroOnAConstant) {
  RunningMeanNorm norm(2, 3);
  std::vector<int32_t> v = {1000, -500};
  norm.Process(v);
  EXPECT_EQ(v, (std::vector<int32_t>{0, 0}));  // the first frame primes the mean
  for (int i = 0; i < 100; ++i) {
    v = {2000, -500};
    norm.Process(v);
  }
  EXPECT_NEAR(v[0], 0, 2);
  EXPECT_EQ(v[1], 0);
}

}  // namespace
}  // namespace earshot::features
