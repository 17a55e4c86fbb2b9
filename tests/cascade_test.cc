// The cascade: its pure transitions, and the pipeline's gating, ordering, muting and model swaps
// on the bundled sample ("computer", then a request) and on silence.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "audio/frame_source.h"
#include "statemachine/cascade.h"
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
  EXPECT_NE(final->text.find(" is "), std::string::npos) << final->text;  // "what is slang"
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
  for (const Event& e : sink.events) EXPECT_FALSE(std::holds_alternative<TranscriptEvent>(e));
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
