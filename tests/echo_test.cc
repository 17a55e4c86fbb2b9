// The echo canceller and its delay estimator on signals made here: a known delay is found, a
// linear echo is removed, and the microphone passes bit for bit while nothing plays.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "echo/delay_estimator.h"
#include "echo/echo_canceller.h"

namespace earshot::echo {
namespace {

// Speech-like playback: noise whose loudness changes every 50-300 ms, as syllables and notes do.
std::vector<int16_t> Playback(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, 1.0);
  std::uniform_int_distribution<int> length(800, 4800);
  std::uniform_real_distribution<double> level(0.0, 3000.0);
  std::vector<int16_t> x(n);
  double g = level(rng);
  for (size_t i = 0, next = 0; i < n; ++i) {
    if (i == next) {
      g = level(rng);
      next += static_cast<size_t>(length(rng));
    }
    x[i] = static_cast<int16_t>(std::lround(std::clamp(g * noise(rng), -32000.0, 32000.0)));
  }
  return x;
}

// `x` delayed by `delay` samples, through a short decaying path, at half its level.
std::vector<int16_t> Echo(const std::vector<int16_t>& x, size_t delay) {
  const double path[] = {0.5, 0.2, -0.1, 0.05};
  std::vector<int16_t> y(x.size());
  for (size_t i = delay; i < x.size(); ++i) {
    double v = 0.0;
    for (size_t k = 0; k < 4 && k + delay <= i; ++k) v += path[k] * x[i - delay - k];
    y[i] = static_cast<int16_t>(std::lround(v));
  }
  return y;
}

audio::Frame FrameAt(const std::vector<int16_t>& x, size_t f) {
  audio::Frame frame;
  std::copy_n(x.begin() + static_cast<std::ptrdiff_t>(f * audio::kFrameSamples),
              audio::kFrameSamples, frame.begin());
  return frame;
}

double Energy(const audio::Frame& f) {
  double e = 0.0;
  for (int16_t s : f) e += static_cast<double>(s) * s;
  return e;
}

TEST(DelayEstimator, FindsTheDelayOfAnEcho) {
  for (size_t delay_ms : {20u, 120u, 290u}) {
    const std::vector<int16_t> played = Playback(16000 * 6, 1);
    const std::vector<int16_t> heard = Echo(played, delay_ms * 16);
    DelayEstimator estimator{DelayEstimatorConfig{}};
    for (size_t f = 0; f < played.size() / audio::kFrameSamples; ++f) {
      estimator.Push(FrameAt(played, f), FrameAt(heard, f));
    }
    EXPECT_TRUE(estimator.found()) << delay_ms;
    EXPECT_EQ(estimator.delay_frames() * audio::kFrameMs, static_cast<int>(delay_ms));
  }
}

TEST(DelayEstimator, FindsNothingInUnrelatedAudio) {
  const std::vector<int16_t> played = Playback(16000 * 6, 1), other = Playback(16000 * 6, 2);
  DelayEstimator estimator{DelayEstimatorConfig{}};
  for (size_t f = 0; f < played.size() / audio::kFrameSamples; ++f) {
    estimator.Push(FrameAt(played, f), FrameAt(other, f));
  }
  EXPECT_FALSE(estimator.found());
}

TEST(EchoCanceller, RemovesALinearEcho) {
  const std::vector<int16_t> played = Playback(16000 * 8, 3);
  const std::vector<int16_t> heard = Echo(played, 100 * 16);
  auto canceller = EchoCanceller::Create(EchoCancellerConfig{});
  ASSERT_TRUE(canceller.ok()) << canceller.error().message;
  double before = 0.0, after = 0.0;
  for (size_t f = 0; f < played.size() / audio::kFrameSamples; ++f) {
    audio::Frame mic = FrameAt(heard, f);
    const double e = Energy(mic);
    (*canceller)->Process(FrameAt(played, f), mic);
    if (f >= 400) {  // after 4 s: the delay found and the filter converged
      before += e;
      after += Energy(mic);
    }
  }
  EXPECT_EQ((*canceller)->stats().delay_ms, 100);
  EXPECT_GT(10.0 * std::log10(before / after), 20.0);
}

TEST(EchoCanceller, SilentOrMissingReferenceLeavesTheMicrophoneAsItIs) {
  auto canceller = EchoCanceller::Create(EchoCancellerConfig{});
  ASSERT_TRUE(canceller.ok());
  const std::vector<int16_t> voice = Playback(16000 * 2, 4);
  for (size_t f = 0; f < voice.size() / audio::kFrameSamples; ++f) {
    audio::Frame mic = FrameAt(voice, f);
    if (f % 2 == 0) {
      (*canceller)->Process(audio::Frame{}, mic);
    } else {
      (*canceller)->ProcessWithoutReference();
    }
    ASSERT_EQ(mic, FrameAt(voice, f)) << f;
  }
  EXPECT_EQ((*canceller)->stats().active_frames, 0);
}

TEST(EchoCanceller, AReferenceThatStopsIsCountedOnceAndPassesThrough) {
  const std::vector<int16_t> played = Playback(16000 * 3, 5);
  const std::vector<int16_t> heard = Echo(played, 50 * 16);
  auto canceller = EchoCanceller::Create(EchoCancellerConfig{});
  ASSERT_TRUE(canceller.ok());
  for (size_t f = 0; f < played.size() / audio::kFrameSamples; ++f) {
    audio::Frame mic = FrameAt(heard, f);
    (*canceller)->Process(FrameAt(played, f), mic);
  }
  EXPECT_TRUE((*canceller)->stats().active);
  for (int f = 0; f < 100; ++f) {
    audio::Frame mic = FrameAt(heard, static_cast<size_t>(f));
    (*canceller)->ProcessWithoutReference();
    ASSERT_EQ(mic, FrameAt(heard, static_cast<size_t>(f)));
  }
  EXPECT_EQ((*canceller)->stats().reference_gaps, 1);
  EXPECT_FALSE((*canceller)->stats().active);
}

TEST(EchoCanceller, RefusesAFilterOutOfRange) {
  EchoCancellerConfig config;
  config.filter_ms = 5;
  auto canceller = EchoCanceller::Create(config);
  ASSERT_FALSE(canceller.ok());
  EXPECT_NE(canceller.error().message.find("filter of 5 ms"), std::string::npos);
}

}  // namespace
}  // namespace earshot::echo
