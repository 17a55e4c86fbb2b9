// The cascade: its pure transitions, and the pipeline's gating, ordering, muting and model swaps
// on the bundled sample ("computer", then a request) and on silence.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "audio/frame_source.h"
#include "governor/governor_driver.h"
#include "statemachine/cascade.h"
#include "statemachine/model_library.h"
#include "statemachine/pipeline.h"

namespace earshot::statemachine {
namespace {

const std::string kSample = std::string(EARSHOT_SOURCE_DIR) + "/tools/samples/computer_request.flac";

TEST(Cascade, Transitions) {
  struct Case {
    State from;
    Input input;
    bool speech;
    State to;
  };
  const std::vector<Case> cases = {
      {State::kIdle, Input::kSpeechStart, true, State::kVoice},
      {State::kIdle, Input::kSpeechEnd, false, State::kIdle},
      {State::kIdle, Input::kWake, true, State::kIdle},  // no keyword spotting without voice
      {State::kIdle, Input::kEndpoint, false, State::kIdle},
      {State::kVoice, Input::kSpeechEnd, false, State::kIdle},
      {State::kVoice, Input::kWake, true, State::kCommand},
      {State::kVoice, Input::kSpeechStart, true, State::kVoice},
      {State::kCommand, Input::kSpeechEnd, false, State::kCommand},  // pauses within a request
      {State::kCommand, Input::kSpeechStart, true, State::kCommand},
      {State::kCommand, Input::kWake, true, State::kCommand},
      {State::kCommand, Input::kEndpoint, false, State::kIdle},
      {State::kCommand, Input::kEndpoint, true, State::kVoice},  // cut at max length mid-speech
      {State::kIdle, Input::kMute, false, State::kMuted},
      {State::kVoice, Input::kMute, true, State::kMuted},
      {State::kCommand, Input::kMute, true, State::kMuted},
      {State::kMuted, Input::kSpeechStart, true, State::kMuted},
      {State::kMuted, Input::kWake, true, State::kMuted},
      {State::kMuted, Input::kUnmute, false, State::kIdle},
      {State::kIdle, Input::kUnmute, false, State::kIdle},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Next(c.from, c.input, c.speech), c.to)
        << StateName(c.from) << " + input " << static_cast<int>(c.input);
  }
  EXPECT_EQ(StateName(State::kCommand), "command");
}

TEST(StageSet, Parses) {
  EXPECT_FALSE(StageSet::Parse("vad")->kws);
  EXPECT_TRUE(StageSet::Parse("vad,kws")->kws);
  EXPECT_FALSE(StageSet::Parse("vad,kws")->stt);
  EXPECT_TRUE(StageSet::Parse("all")->stt);
  EXPECT_FALSE(StageSet::Parse("kws").ok());
}

class RecordingSink final : public EventSink {
 public:
  void Emit(const Event& event) override { events.push_back(event); }
  std::vector<std::string> Kinds() const {
    std::vector<std::string> kinds;
    for (const Event& e : events) {
      std::string json = ToJson(e);
      const size_t start = json.find(": \"") + 3;
      kinds.push_back(json.substr(start, json.find('"', start) - start));
    }
    return kinds;
  }
  std::vector<Event> events;
};

double TimeOf(const Event& event) {
  return std::visit([](const auto& e) { return e.t; }, event);
}

std::unique_ptr<Pipeline> MakePipeline(StageSet stages, EventSink* sink) {
  auto pipeline = Pipeline::Create(config::Config::Defaults(), stages, sink);
  EXPECT_TRUE(pipeline.ok()) << pipeline.error().message;
  return std::move(pipeline).value();
}

// Pushes the whole sample; returns its frame count.
int64_t PushSample(Pipeline& pipeline) {
  auto source = audio::FileSource::Open(kSample, {});
  EXPECT_TRUE(source.ok());
  audio::Frame frame;
  int64_t frames = 0;
  while (*(*source)->Next(frame)) {
    pipeline.Push(frame);
    ++frames;
  }
  return frames;
}

TEST(Pipeline, SilenceKeepsTheLaterStagesAsleep) {
  RecordingSink sink;
  auto pipeline = MakePipeline(StageSet{true, false}, &sink);
  const audio::Frame silence{};
  for (int i = 0; i < 1000; ++i) pipeline->Push(silence);
  pipeline->Finish();
  const PipelineStats& stats = pipeline->stats();
  EXPECT_EQ(stats.frames, 1000);
  EXPECT_EQ(stats.front_end.frames, 1000);
  EXPECT_EQ(stats.vad.frames, 1000);
  EXPECT_EQ(stats.kws.frames, 0);
  EXPECT_EQ(stats.stt.frames, 0);
  EXPECT_TRUE(sink.events.empty());
  EXPECT_EQ(pipeline->state(), State::kIdle);
}

TEST(Pipeline, SampleGivesWakeThenRequestInOrder) {
  RecordingSink sink;
  auto pipeline = MakePipeline(StageSet{true, true}, &sink);
  const int64_t frames = PushSample(*pipeline);
  pipeline->Finish();
  std::vector<std::string> kinds;
  for (const std::string& k : sink.Kinds()) {
    if (k != "transcript" || kinds.empty() || kinds.back() != "transcript") kinds.push_back(k);
  }
  EXPECT_EQ(kinds, (std::vector<std::string>{"speech_start", "state", "wake", "state", "transcript",
                                             "speech_end", "state"}));
  for (size_t i = 1; i < sink.events.size(); ++i) {
    EXPECT_LE(TimeOf(sink.events[i - 1]), TimeOf(sink.events[i])) << "event " << i;
  }
  const auto* final = std::get_if<TranscriptEvent>(&sink.events[sink.events.size() - 3]);
  ASSERT_NE(final, nullptr);
  EXPECT_TRUE(final->final);
  // "she's going to put the ironing things away"
  EXPECT_NE(final->text.find("ironing"), std::string::npos) << final->text;
  EXPECT_EQ(final->end, std::round(final->end * 100) / 100);  // on the 10 ms grid, as it prints
  const auto* wake = std::get_if<WakeEvent>(&sink.events[2]);
  ASSERT_NE(wake, nullptr);
  EXPECT_GE(final->start, wake->t);  // the keyword is not part of the request
  const PipelineStats& stats = pipeline->stats();
  EXPECT_EQ(stats.wakes, 1);
  EXPECT_EQ(stats.requests, 1);
  EXPECT_EQ(stats.front_end.frames, frames);
  EXPECT_GT(stats.kws.frames, 0);
  EXPECT_LT(stats.kws.frames, frames);  // only while there is voice, before the wake
  EXPECT_GT(stats.stt.frames, 0);
  EXPECT_LT(stats.stt.frames + stats.kws.frames, frames + 150);  // never both on one frame
}

TEST(Pipeline, MutedDropsAudioAndUnmuteStartsIdle) {
  RecordingSink sink;
  auto pipeline = MakePipeline(StageSet{true, false}, &sink);
  pipeline->Mute();
  EXPECT_EQ(pipeline->state(), State::kMuted);
  PushSample(*pipeline);
  pipeline->Finish();
  EXPECT_EQ(pipeline->stats().front_end.frames, 0);
  EXPECT_EQ(pipeline->stats().wakes, 0);
  EXPECT_EQ(sink.Kinds(), (std::vector<std::string>{"state"}));
  pipeline->Unmute();
  EXPECT_EQ(pipeline->state(), State::kIdle);
  PushSample(*pipeline);  // a new stream after the gap: the keyword is heard again
  pipeline->Finish();
  EXPECT_EQ(pipeline->stats().wakes, 1);
}

// Every request ends with exactly one final transcript, a muted one too: apps wait for it.
TEST(Pipeline, MuteDuringARequestAbandonsIt) {
  RecordingSink sink;
  auto pipeline = MakePipeline(StageSet{true, true}, &sink);
  auto source = audio::FileSource::Open(kSample, {});
  ASSERT_TRUE(source.ok());
  audio::Frame frame;
  while (pipeline->state() != State::kCommand && *(*source)->Next(frame)) pipeline->Push(frame);
  ASSERT_EQ(pipeline->state(), State::kCommand);
  pipeline->Mute();
  while (*(*source)->Next(frame)) pipeline->Push(frame);
  pipeline->Finish();
  std::vector<TranscriptEvent> finals;
  for (const Event& e : sink.events) {
    const auto* transcript = std::get_if<TranscriptEvent>(&e);
    if (transcript != nullptr && transcript->final) finals.push_back(*transcript);
  }
  ASSERT_EQ(finals.size(), 1u);
  EXPECT_TRUE(finals[0].cancelled);
  EXPECT_EQ(finals[0].text, "");
  EXPECT_LE(finals[0].start, finals[0].end);
  const std::vector<std::string> kinds = sink.Kinds();
  ASSERT_GE(kinds.size(), 2u);
  EXPECT_EQ(kinds.back(), "state");  // muted, after the cancelled request's final transcript
  EXPECT_EQ(pipeline->stats().requests, 0);
}

TEST(Pipeline, ModelSwapWaitsForIdle) {
  RecordingSink sink;
  auto pipeline = MakePipeline(StageSet{true, false}, &sink);
  const PipelineModels original = pipeline->models();
  auto source = audio::FileSource::Open(kSample, {});
  ASSERT_TRUE(source.ok());
  audio::Frame frame;
  while (pipeline->state() != State::kCommand && *(*source)->Next(frame)) pipeline->Push(frame);
  ASSERT_EQ(pipeline->state(), State::kCommand);
  PipelineModels none = original;
  none.kws = nullptr;  // a pipeline without the keyword stage
  pipeline->SwapModels(none);
  EXPECT_EQ(pipeline->models().kws, original.kws);  // the request keeps its models
  while (*(*source)->Next(frame)) pipeline->Push(frame);
  pipeline->Finish();
  EXPECT_EQ(pipeline->state(), State::kIdle);
  EXPECT_EQ(pipeline->models().kws, nullptr);  // swapped once idle
  const int64_t kws_frames = pipeline->stats().kws.frames;
  PushSample(*pipeline);
  EXPECT_EQ(pipeline->stats().kws.frames, kws_frames);
}

}  // namespace
}  // namespace earshot::statemachine

namespace earshot::statemachine {
namespace {

std::vector<audio::Frame> ReadSample() {
  std::vector<audio::Frame> frames;
  auto source = audio::FileSource::Open(kSample, {});
  EXPECT_TRUE(source.ok());
  audio::Frame frame;
  while (source.ok() && *(*source)->Next(frame)) frames.push_back(frame);
  return frames;
}

// Two requests; the battery drops under the saver threshold during the first. The swap waits for
// the end of that request, and the second request runs on the saver profile's models.
TEST(GovernorDriver, SwapsAfterTheRequestInProgress) {
  config::Config config = config::Config::Defaults();
  ASSERT_TRUE(config.Set("governor.min_dwell_ms", "1000").ok());
  ASSERT_TRUE(config.Set("governor.poll_ms", "100").ok());
  // A separate load of the bundled model stands for the small one: it is a different instance.
  ASSERT_TRUE(config.Set("kws.small_models",
                         std::string(EARSHOT_SOURCE_DIR) + "/models/kws/computer.eshm").ok());
  auto gov_config = governor::GovernorConfig::FromConfig(config);
  ASSERT_TRUE(gov_config.ok());
  auto library = std::make_shared<ModelLibrary>(config, StageSet{true, true});
  auto large = library->For(gov_config->Models(governor::Profile::kPerformance));
  auto small = library->For(gov_config->Models(governor::Profile::kSaver));
  ASSERT_TRUE(large.ok() && small.ok());
  ASSERT_NE(large->stt, small->stt);
  ASSERT_NE(large->kws, small->kws);

  RecordingSink sink;
  auto pipeline = Pipeline::Create(config, *large, &sink);
  ASSERT_TRUE(pipeline.ok());
  auto read = [](int64_t now_ms) {
    governor::SensorSample sample;
    sample.readings.battery_percent = now_ms < 2000 ? 50 : 15;  // during the first request
    sample.readings.charging = false;
    return sample;
  };
  governor::PipelineHost host(pipeline->get(), &sink);
  governor::SynchronousLoader loader;
  governor::GovernorDriver driver(*gov_config, library,
                                  gov_config->Models(governor::Profile::kPerformance), &host,
                                  &loader, read);

  std::vector<audio::Frame> frames = ReadSample();
  const std::vector<audio::Frame> sample = frames;
  frames.resize(frames.size() + 200);  // 2 s of silence
  frames.insert(frames.end(), sample.begin(), sample.end());
  std::vector<State> state_at_profile;
  std::vector<const stt::SttModel*> stt_in_command;
  for (size_t i = 0; i < frames.size(); ++i) {
    const size_t events = sink.events.size();
    driver.Tick(static_cast<int64_t>(i) * 10);
    if (sink.events.size() > events && std::holds_alternative<ProfileEvent>(sink.events.back())) {
      state_at_profile.push_back((*pipeline)->state());
    }
    (*pipeline)->Push(frames[i]);
    if ((*pipeline)->state() == State::kCommand) stt_in_command.push_back((*pipeline)->models().stt.get());
  }
  (*pipeline)->Finish();

  ASSERT_EQ(state_at_profile.size(), 2u);  // performance at the start, saver at 2 s
  EXPECT_EQ(state_at_profile[1], State::kCommand);
  EXPECT_EQ((*pipeline)->stats().requests, 2);
  ASSERT_FALSE(stt_in_command.empty());
  EXPECT_EQ(stt_in_command.front(), large->stt.get());  // the first request kept its models
  EXPECT_EQ(stt_in_command.back(), small->stt.get());   // the second ran on saver's
  EXPECT_EQ((*pipeline)->models().kws, small->kws);
  int finals = 0;
  for (const Event& e : sink.events) {
    if (const auto* t = std::get_if<TranscriptEvent>(&e)) finals += t->final;
    if (const auto* p = std::get_if<ProfileEvent>(&e)) {
      EXPECT_FALSE(p->reason.empty());
    }
  }
  EXPECT_EQ(finals, 2);
}

TEST(GovernorDriver, AModelThatFailsToLoadKeepsTheOldOnes) {
  config::Config config = config::Config::Defaults();
  ASSERT_TRUE(config.Set("governor.profile", "saver").ok());
  ASSERT_TRUE(config.Set("kws.small_models", "/nonexistent/small.eshm").ok());
  auto gov_config = governor::GovernorConfig::FromConfig(config);
  ASSERT_TRUE(gov_config.ok());
  auto library = std::make_shared<ModelLibrary>(config, StageSet{true, false});
  auto large = library->For(gov_config->Models(governor::Profile::kPerformance));
  ASSERT_TRUE(large.ok());
  RecordingSink sink;
  auto pipeline = Pipeline::Create(config, *large, &sink);
  ASSERT_TRUE(pipeline.ok());
  governor::PipelineHost host(pipeline->get(), &sink);
  governor::SynchronousLoader loader;
  governor::GovernorDriver driver(*gov_config, library,
                                  gov_config->Models(governor::Profile::kPerformance), &host,
                                  &loader, [](int64_t) { return governor::SensorSample{}; });
  driver.Tick(0);
  EXPECT_EQ((*pipeline)->models().kws, large->kws);
  ASSERT_EQ(sink.Kinds(), (std::vector<std::string>{"profile", "error"}));
  EXPECT_NE(ToJson(sink.events[1]).find("/nonexistent/small.eshm"), std::string::npos);
}

// A loader whose load is done when the test says so, as earshotd's loader thread's is.
class DeferredLoader final : public governor::ModelLoader {
 public:
  void Start(std::shared_ptr<ModelLibrary> library, ProfileModels sizes) override {
    started.push_back(sizes);
    library_ = std::move(library);
  }
  std::optional<Result<PipelineModels>> Take() override {
    if (!done || !library_) return std::nullopt;
    done = false;
    return std::exchange(library_, nullptr)->For(started.back());
  }
  std::vector<ProfileModels> started;
  bool done = false;

 private:
  std::shared_ptr<ModelLibrary> library_;
};

class RecordingHost final : public governor::GovernorHost {
 public:
  double EventTime() override { return 0; }
  void Emit(const Event& event) override { events.push_back(event); }
  void Loaded(Result<PipelineModels> models, const governor::ModelLoad& load) override {
    loaded.emplace_back(models.ok(), load.kind);
  }
  std::vector<Event> events;
  std::vector<std::pair<bool, governor::ModelLoad::Kind>> loaded;
};

// One load at a time: a later one waits, replacing any other waiting (but a load for command sets
// alone, which adds nothing to one waiting); the models go to the host as each one is done.
TEST(GovernorDriver, OneLoadAtATimeTheLatestWaiting) {
  const config::Config config = config::Config::Defaults();
  auto gov_config = governor::GovernorConfig::FromConfig(config);
  ASSERT_TRUE(gov_config.ok());
  auto library = std::make_shared<ModelLibrary>(config, StageSet{false, false});
  DeferredLoader loader;
  RecordingHost host;
  governor::GovernorDriver driver(
      *gov_config, library, gov_config->Models(governor::Profile::kPerformance), &host, &loader);
  driver.SetProfile(governor::Profile::kSaver, 0);
  ASSERT_EQ(loader.started.size(), 1u);
  driver.SetProfile(governor::Profile::kCritical, 0);
  driver.Load(governor::ModelLoad::Kind::kReload);
  driver.Load(governor::ModelLoad::Kind::kCommands);
  driver.Poll();  // not done yet
  EXPECT_EQ(loader.started.size(), 1u);
  EXPECT_TRUE(host.loaded.empty());
  loader.done = true;
  driver.Poll();
  ASSERT_EQ(loader.started.size(), 2u);  // the reload, of critical's models
  EXPECT_EQ(loader.started[1], gov_config->Models(governor::Profile::kCritical));
  loader.done = true;
  driver.Poll();
  using Kind = governor::ModelLoad::Kind;
  EXPECT_EQ(host.loaded, (std::vector<std::pair<bool, Kind>>{{true, Kind::kGovernor},
                                                             {true, Kind::kReload}}));
  EXPECT_EQ(driver.loading(), nullptr);
  EXPECT_EQ(host.events.size(), 2u);  // saver, critical
}

}  // namespace
}  // namespace earshot::statemachine
