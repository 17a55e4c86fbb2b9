// The cascade with several keywords: each keyword heard gives its wake, the first starts the one
// request; sensitivities change at once, shift during playback and follow the models swapped in;
// the governor's small profiles load every keyword's small model.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "audio/frame_source.h"
#include "statemachine/model_library.h"
#include "statemachine/pipeline.h"

namespace earshot::statemachine {
namespace {

const std::string kSource = EARSHOT_SOURCE_DIR;
const std::string kSample = kSource + "/tools/samples/computer_request.flac";
const std::string kComputer = kSource + "/models/kws/computer.eshm";

class RecordingSink final : public EventSink {
 public:
  void Emit(const Event& event) override { events.push_back(event); }
  std::vector<const WakeEvent*> Wakes() const {
    std::vector<const WakeEvent*> wakes;
    for (const Event& e : events) {
      if (const auto* wake = std::get_if<WakeEvent>(&e)) wakes.push_back(wake);
    }
    return wakes;
  }
  std::vector<Event> events;
};

// "computer" twice: the bundled keyword, and its large model again under another name.
config::Config TwoKeywords(const std::string& sensitivities) {
  config::Config config = config::Config::Defaults();
  EXPECT_TRUE(config.Set("kws.models", "computer," + kComputer).ok());
  EXPECT_TRUE(config.Set("kws.names", ",second").ok());
  EXPECT_TRUE(config.Set("kws.sensitivities", sensitivities).ok());
  return config;
}

std::unique_ptr<Pipeline> MakePipeline(const config::Config& config, StageSet stages,
                                       EventSink* sink) {
  auto pipeline = Pipeline::Create(config, stages, sink);
  EXPECT_TRUE(pipeline.ok()) << pipeline.error().message;
  return pipeline.ok() ? std::move(pipeline).value() : nullptr;
}

// The sample as a stream of its own (after a mute, which starts a new one).
void PushSample(Pipeline& pipeline, const std::string& sample = kSample) {
  pipeline.Mute();
  pipeline.Unmute();
  auto source = audio::FileSource::Open(sample, {});
  ASSERT_TRUE(source.ok());
  audio::Frame frame;
  while (*(*source)->Next(frame)) pipeline.Push(frame);
  pipeline.Finish();
}

double TimeOf(const Event& event) {
  return std::visit([](const auto& e) { return e.t; }, event);
}

// Both wakes at the same hop; the second's run under a lower threshold; under a higher one (0.02:
// 0.995), whose run ends first: its wake starts the request while the first's run is still over
// its threshold, which then ends too, as a wake of its own.
TEST(Keywords, TwoKeywordsInOneSpeechGiveTwoWakesAndOneRequest) {
  for (const std::string sensitivities : {"0.5,0.5", "0.5,0.7", "0.5,0.02"}) {
    SCOPED_TRACE(sensitivities);
    RecordingSink sink;
    auto pipeline = MakePipeline(TwoKeywords(sensitivities), StageSet{true, true}, &sink);
    ASSERT_NE(pipeline, nullptr);
    ASSERT_EQ(pipeline->models().kws->groups().size(), 1u);  // one trunk for both
    PushSample(*pipeline);
    const std::vector<const WakeEvent*> wakes = sink.Wakes();
    ASSERT_EQ(wakes.size(), 2u);
    EXPECT_NE(wakes[0]->keyword, wakes[1]->keyword);
    EXPECT_EQ(wakes[0]->keyword, sensitivities == "0.5,0.02" ? "second" : "computer");
    EXPECT_EQ(pipeline->stats().wakes, 2);
    EXPECT_EQ(pipeline->stats().requests, 1);
    int finals = 0;
    for (size_t i = 0; i < sink.events.size(); ++i) {
      if (i > 0) {
        EXPECT_LE(TimeOf(sink.events[i - 1]), TimeOf(sink.events[i])) << "event " << i;
      }
      if (const auto* t = std::get_if<TranscriptEvent>(&sink.events[i])) {
        finals += t->final;
        EXPECT_GE(t->start, wakes[0]->t);  // the request starts after the first keyword
      }
    }
    EXPECT_EQ(finals, 1);
  }
}

TEST(Keywords, SetSensitivityTakesEffectAtOnce) {
  config::Config config = config::Config::Defaults();
  RecordingSink sink;
  auto pipeline = MakePipeline(config, StageSet{true, false}, &sink);
  ASSERT_NE(pipeline, nullptr);
  EXPECT_FALSE(pipeline->SetSensitivity("nothing", 0.5));
  ASSERT_TRUE(pipeline->SetSensitivity("computer", 0.0));  // never
  EXPECT_EQ(pipeline->models().sensitivities, std::vector<double>{0.0});
  PushSample(*pipeline);
  EXPECT_TRUE(sink.Wakes().empty());
  ASSERT_TRUE(pipeline->SetSensitivity("computer", 0.5));
  double start = pipeline->time();
  PushSample(*pipeline);
  ASSERT_EQ(sink.Wakes().size(), 1u);
  const double at_default = sink.Wakes()[0]->t - start;
  EXPECT_NEAR(at_default, 1.05, 0.001);                    // as the golden run_sample.jsonl
  ASSERT_TRUE(pipeline->SetSensitivity("computer", 1.0));  // every hop is over the threshold
  start = pipeline->time();
  PushSample(*pipeline);
  ASSERT_EQ(sink.Wakes().size(), 2u);
  EXPECT_LT(sink.Wakes()[1]->t - start, 0.9);  // at the hold's end, from the speech's start
}

// kws.playback_sensitivity_shift: while the playback is cancelled, a keyword at 0 (never) hears
// as at 0.5, and one at 0.5 as at 0 (never); after it, each as its own again.
TEST(Keywords, PlaybackShiftsEverySensitivityWhileItLasts) {
  for (const double shift : {0.5, -0.5}) {
    SCOPED_TRACE(shift);
    config::Config config = config::Config::Defaults();
    ASSERT_TRUE(config.Set("kws.playback_sensitivity_shift", std::to_string(shift)).ok());
    ASSERT_TRUE(config.Set("kws.sensitivities", shift > 0 ? "0.0" : "0.5").ok());
    RecordingSink sink;
    auto pipeline = MakePipeline(config, StageSet{true, false}, &sink);
    ASSERT_NE(pipeline, nullptr);
    pipeline->SetPlayback(true);
    double start = pipeline->time();
    PushSample(*pipeline);
    ASSERT_EQ(sink.Wakes().size(), shift > 0 ? 1u : 0u);
    if (shift > 0) {
      EXPECT_NEAR(sink.Wakes()[0]->t - start, 1.05, 0.001);  // as at 0.5 without playback
      EXPECT_TRUE(sink.Wakes()[0]->playback);
    }
    pipeline->SetPlayback(false);
    start = pipeline->time();
    PushSample(*pipeline);
    ASSERT_EQ(sink.Wakes().size(), 1u);
    if (shift < 0) {
      EXPECT_NEAR(sink.Wakes()[0]->t - start, 1.05, 0.001);
    }
    EXPECT_EQ(pipeline->models().sensitivities, std::vector<double>{shift > 0 ? 0.0 : 0.5});
  }
}

TEST(Keywords, SetSensitivityReachesTheModelsWaitingForIdle) {
  config::Config config = TwoKeywords("0.5,0.5");
  RecordingSink sink;
  auto pipeline = MakePipeline(config, StageSet{true, false}, &sink);
  ASSERT_NE(pipeline, nullptr);
  ModelLibrary library(config, StageSet{true, false});
  auto small = library.For(ProfileModels{KwsSize::kSmall, SttSize::kOff});
  ASSERT_TRUE(small.ok()) << small.error().message;
  auto source = audio::FileSource::Open(kSample, {});
  ASSERT_TRUE(source.ok());
  audio::Frame frame;
  while (pipeline->state() != State::kCommand && *(*source)->Next(frame)) pipeline->Push(frame);
  ASSERT_EQ(pipeline->state(), State::kCommand);
  pipeline->SwapModels(*small);  // waits for idle
  ASSERT_TRUE(pipeline->SetSensitivity("second", 0.25));
  EXPECT_EQ(pipeline->models().sensitivities, (std::vector<double>{0.5, 0.25}));
  while (*(*source)->Next(frame)) pipeline->Push(frame);
  pipeline->Finish();
  ASSERT_EQ(pipeline->models().kws, small->kws);
  EXPECT_EQ(pipeline->models().sensitivities, (std::vector<double>{0.5, 0.25}));
}

// The saver profile loads every keyword's small model; one without keeps its large model.
TEST(Keywords, SmallProfilesLoadEachKeywordsSmallModel) {
  ModelLibrary library(TwoKeywords("0.5,0.5"), StageSet{true, false});
  auto large = library.For(ProfileModels{KwsSize::kLarge, SttSize::kOff});
  auto small = library.For(ProfileModels{KwsSize::kSmall, SttSize::kOff});
  ASSERT_TRUE(large.ok() && small.ok());
  const std::vector<kws::Keyword>& l = large->kws->keywords();
  const std::vector<kws::Keyword>& s = small->kws->keywords();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].name, "computer");
  EXPECT_EQ(s[1].name, "second");
  EXPECT_TRUE(s[0].small);
  EXPECT_NE(s[0].path.find("computer_small.eshm"), std::string::npos) << s[0].path;
  EXPECT_NE(s[0].model, l[0].model);
  EXPECT_FALSE(s[1].small);
  EXPECT_EQ(s[1].model, l[1].model);           // the same file, loaded once
  EXPECT_EQ(small->kws->groups().size(), 2u);  // the small and the large trunk
  EXPECT_EQ(small->sensitivities, (std::vector<double>{0.5, 0.5}));
}

// The keywords trained from text have a second stage (kws_verify): on the three-keyword sample
// both are heard with their verified confidence, at least the default threshold's; at sensitivity
// 0.1 the second stage rejects their candidates, and SetSensitivity moves its threshold back.
TEST(Keywords, KeywordsFromTextAreCheckedByTheirSecondStage) {
  const std::string sample = kSource + "/tools/samples/three_keywords.flac";
  config::Config config = config::Config::Defaults();
  ASSERT_TRUE(config
                  .Set("kws.models", kSource + "/models/kws/snowboy.eshm," + kSource +
                                         "/models/kws/view_glass.eshm")
                  .ok());
  ASSERT_TRUE(config.Set("kws.sensitivities", "0.1,0.1").ok());
  RecordingSink sink;
  auto pipeline = MakePipeline(config, StageSet{true, false}, &sink);
  ASSERT_NE(pipeline, nullptr);
  ASSERT_NE(pipeline->models().verifier, nullptr);
  PushSample(*pipeline, sample);
  EXPECT_TRUE(sink.Wakes().empty());
  EXPECT_GE(pipeline->stats().candidates_rejected, 2);

  ASSERT_TRUE(pipeline->SetSensitivity("snowboy", 0.5));
  ASSERT_TRUE(pipeline->SetSensitivity("view glass", 0.5));
  PushSample(*pipeline, sample);
  const std::vector<const WakeEvent*> wakes = sink.Wakes();
  ASSERT_EQ(wakes.size(), 2u);
  EXPECT_EQ(wakes[0]->keyword, "snowboy");
  EXPECT_EQ(wakes[1]->keyword, "view glass");
  for (const WakeEvent* wake : wakes) EXPECT_GE(wake->score, 0.75) << wake->keyword;
}

// The speech's start and end times of a run, as the events say them.
std::vector<double> SpeechTimes(const std::vector<Event>& events) {
  std::vector<double> times;
  for (const Event& e : events) {
    if (std::holds_alternative<SpeechStartEvent>(e) || std::holds_alternative<SpeechEndEvent>(e)) {
      times.push_back(TimeOf(e));
    }
  }
  return times;
}

// When the speech ends during a keyword's run over its candidate threshold, the keyword stage goes
// on until the run ends (its length is part of the verified confidence; cut at the speech's end,
// the sample's snowboy scored under the default threshold): the wake's time is still the speech's
// end (as in the golden run_three.jsonl), and where the second stage rejects the runs the speech
// ends at the times the VAD alone gives.
TEST(Keywords, ARunGoesOnAfterTheSpeechEndsWhichKeepsItsTime) {
  const std::string sample = kSource + "/tools/samples/three_keywords.flac";
  config::Config config = config::Config::Defaults();
  ASSERT_TRUE(config.Set("kws.models", kSource + "/models/kws/snowboy.eshm").ok());
  RecordingSink vad_alone;
  auto vad = MakePipeline(config, StageSet{false, false}, &vad_alone);
  ASSERT_NE(vad, nullptr);
  PushSample(*vad, sample);
  const std::vector<double> speech = SpeechTimes(vad_alone.events);
  ASSERT_GE(speech.size(), 4u);
  RecordingSink heard;
  auto pipeline = MakePipeline(config, StageSet{true, false}, &heard);
  ASSERT_NE(pipeline, nullptr);
  PushSample(*pipeline, sample);
  ASSERT_EQ(heard.Wakes().size(), 1u);
  EXPECT_NEAR(heard.Wakes()[0]->t, 6.28, 0.001);
  EXPECT_TRUE(std::find(speech.begin(), speech.end(), heard.Wakes()[0]->t) != speech.end());
  ASSERT_TRUE(config.Set("kws.sensitivities", "0.1").ok());
  RecordingSink rejected;
  pipeline = MakePipeline(config, StageSet{true, false}, &rejected);
  ASSERT_NE(pipeline, nullptr);
  PushSample(*pipeline, sample);
  EXPECT_TRUE(rejected.Wakes().empty());
  EXPECT_GE(pipeline->stats().candidates_rejected, 1);
  EXPECT_EQ(SpeechTimes(rejected.events), speech);
  for (size_t i = 1; i < rejected.events.size(); ++i) {
    EXPECT_LE(TimeOf(rejected.events[i - 1]), TimeOf(rejected.events[i])) << "event " << i;
  }
}

}  // namespace
}  // namespace earshot::statemachine
