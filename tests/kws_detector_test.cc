// WakeDetector: a wake at the end of each run of scores over the threshold, with the run's peak and
// its hops over the threshold, at most max_hold_frames after the crossing, none within the
// refractory period; short dips under the threshold (gap_frames) do not end a run.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "models/kws/detector.h"

namespace earshot::kws {
namespace {

KwsConfig Config() {
  KwsConfig config;
  config.threshold_q15 = 20000;
  config.refractory_frames = 10;
  config.max_hold_frames = 4;
  config.gap_frames = 0;
  return config;
}

// "frame:score" of each wake over scores pushed at frames 0, 1, 2, ...
std::string Wakes(WakeDetector& detector, const std::vector<uint16_t>& scores) {
  std::string out;
  for (size_t i = 0; i < scores.size(); ++i) {
    if (auto wake = detector.Push(static_cast<int64_t>(i), scores[i])) {
      out += std::to_string(wake->frame) + ":" + std::to_string(wake->score_q15) + " ";
    }
  }
  return out;
}

TEST(WakeDetector, ReportsTheRunsLastHopAndPeak) {
  WakeDetector detector(Config());
  EXPECT_EQ(Wakes(detector, {0, 19999, 20000, 25000, 21000, 100, 0}), "4:25000 ");
}

TEST(WakeDetector, HoldsAtMostMaxHoldFrames) {
  WakeDetector detector(Config());
  EXPECT_EQ(Wakes(detector, {30000, 30000, 31000, 30000, 30000, 30000}), "3:31000 ");
}

TEST(WakeDetector, ShortDipsDoNotEndTheRun) {
  KwsConfig config = Config();
  config.max_hold_frames = 20;
  config.gap_frames = 2;
  WakeDetector detector(config);
  // A dip of 2 hops (3, 4) stays in the run; one of 3 hops (7, 8, 9) ends it at its last hop over.
  EXPECT_EQ(Wakes(detector, {0, 21000, 26000, 100, 100, 22000, 23000, 0, 0, 0, 0}), "6:26000 ");
}

TEST(WakeDetector, CountsTheRunsHopsOverTheThresholdFromItsStart) {
  KwsConfig config = Config();
  config.max_hold_frames = 20;
  config.gap_frames = 2;
  WakeDetector detector(config);
  std::optional<Wake> wake;
  const std::vector<uint16_t> scores = {0, 21000, 26000, 100, 100, 22000, 23000, 0, 0, 0, 0};
  for (size_t i = 0; i < scores.size() && !wake; ++i) {
    wake = detector.Push(static_cast<int64_t>(i), scores[i]);
  }
  ASSERT_TRUE(wake);
  EXPECT_EQ(wake->run_hops, 4);  // frames 1, 2, 5 and 6; not the dip between
  EXPECT_EQ(wake->run_start, 1);
  // The next run counts its own: frames 20 to 22, ended by the dip at 25.
  for (int64_t i = 20; i < 23; ++i) EXPECT_FALSE(detector.Push(i, 25000));
  EXPECT_FALSE(detector.Push(23, 0));
  EXPECT_FALSE(detector.Push(24, 0));
  wake = detector.Push(25, 0);
  ASSERT_TRUE(wake);
  EXPECT_EQ(wake->run_hops, 3);
  EXPECT_EQ(wake->run_start, 20);
}

TEST(WakeDetector, HoldsAtMostMaxHoldFramesThroughADip) {
  KwsConfig config = Config();
  config.gap_frames = 5;
  WakeDetector detector(config);
  EXPECT_EQ(Wakes(detector, {30000, 0, 0, 0, 0, 0}), "0:30000 ");  // ended at frame 3, max hold
}

TEST(WakeDetector, RefractoryPeriodCountsStreamFrames) {
  WakeDetector detector(Config());
  // A run ending at 1, then runs starting at 9 (within 10 frames: ignored) and at 12.
  std::vector<uint16_t> scores(16, 0);
  scores[1] = scores[9] = scores[12] = 22000;
  EXPECT_EQ(Wakes(detector, scores), "1:22000 12:22000 ");
}

TEST(WakeDetector, FlushEndsARunInProgress) {
  WakeDetector detector(Config());
  EXPECT_FALSE(detector.Flush());
  EXPECT_FALSE(detector.Push(0, 25000));
  auto wake = detector.Flush();
  ASSERT_TRUE(wake);
  EXPECT_EQ(wake->frame, 0);
  EXPECT_FALSE(detector.Flush());
  EXPECT_FALSE(detector.Push(5, 25000));  // refractory
}

}  // namespace
}  // namespace earshot::kws
