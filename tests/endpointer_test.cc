// The endpointer: when a request after the wake word is over (statemachine/endpointer.h).
#include "statemachine/endpointer.h"

#include <gtest/gtest.h>

#include <string>

namespace earshot::statemachine {
namespace {

EndReason PushAll(Endpointer& e, const std::string& frames) {
  EndReason r = EndReason::kNone;
  for (char c : frames) {
    r = e.Push(c == '1');
    if (r != EndReason::kNone) break;
  }
  return r;
}

TEST(Endpointer, EndsAfterTrailingSilence) {
  EndpointConfig c{3, 100, 50};
  Endpointer e(c);
  e.Start();
  EXPECT_EQ(PushAll(e, "0011110110"), EndReason::kNone);  // gaps shorter than 3 frames
  EXPECT_EQ(e.Push(false), EndReason::kNone);
  EXPECT_EQ(e.Push(false), EndReason::kSilence);
  EXPECT_EQ(e.frames(), 12);
}

TEST(Endpointer, NoSpeechTimeoutAndMaxLength) {
  Endpointer e(EndpointConfig{3, 20, 5});
  e.Start();
  EXPECT_EQ(PushAll(e, "00000"), EndReason::kNoSpeech);
  e.Start();
  EXPECT_EQ(PushAll(e, std::string(25, '1')), EndReason::kMaxLength);
  EXPECT_EQ(e.frames(), 20);
  EXPECT_TRUE(e.heard_speech());
}

TEST(Endpointer, TheKeywordsTrailIsNotTheRequest) {
  Endpointer e(EndpointConfig{3, 100, 10, 4});
  e.Start();
  EXPECT_EQ(PushAll(e, "1111000000"), EndReason::kNoSpeech);  // the trail, then nothing
  EXPECT_FALSE(e.heard_speech());
  e.Start();
  EXPECT_EQ(PushAll(e, "11111"), EndReason::kNone);  // speech goes on after the keyword
  EXPECT_TRUE(e.heard_speech());
  EXPECT_EQ(PushAll(e, "000"), EndReason::kSilence);
}

TEST(Endpointer, DefaultsFromConfigInMilliseconds) {
  const EndpointConfig c = EndpointConfig::FromConfig(config::Config::Defaults());
  EXPECT_EQ(c.endpoint_silence_frames, 70);
  EXPECT_EQ(c.max_utterance_frames, 1000);
  EXPECT_EQ(c.no_speech_timeout_frames, 400);
}

}  // namespace
}  // namespace earshot::statemachine
