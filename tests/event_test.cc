#include "statemachine/event.h"

#include <gtest/gtest.h>

namespace earshot::statemachine {
namespace {

TEST(Event, JsonFieldsInContractOrder) {
  EXPECT_EQ(ToJson(WakeEvent{12.34, "computer", 0.97, 3}),
            R"({"event": "wake", "t": 12.34, "keyword": "computer", "score": 0.97, "request": 3})");
  EXPECT_EQ(ToJson(StateEvent{0, "idle"}), R"({"event": "state", "t": 0, "state": "idle"})");
  EXPECT_EQ(ToJson(AudioEvent{0, "a.wav", 2.5, 48000, 2}),
            R"({"event": "audio", "t": 0, "file": "a.wav", "duration": 2.5, "rate": 48000, )"
            R"("channels": 2})");
  EXPECT_EQ(ToJson(TranscriptEvent{3.5, "hi", true, 0.5, 1, 3}),
            R"({"event": "transcript", "t": 3.5, "text": "hi", "final": true, )"
            R"("confidence": 0.5, "start": 1, "end": 3, "request": 0})");
  TranscriptEvent cancelled{3.5, "", true, 0, 1, 3.5};
  cancelled.cancelled = true;
  cancelled.request = 18446744073709551615u;  // every uint64 exactly, not as a double
  EXPECT_EQ(ToJson(cancelled), R"({"event": "transcript", "t": 3.5, "text": "", "final": true, )"
                               R"("confidence": 0, "start": 1, "end": 3.5, )"
                               R"("request": 18446744073709551615, "cancelled": true})");
  EXPECT_EQ(ToJson(CommandEvent{2.5, 7, "lights", "light", {{"state", "on"}, {"device", "fan"}},
                                "turn on the fan", 1}),
            R"({"event": "command", "t": 2.5, "request": 7, "set": "lights", "intent": "light", )"
            R"("slots": {"device": "fan", "state": "on"}, "text": "turn on the fan", )"
            R"("confidence": 1})");
  EXPECT_EQ(ToJson(CommandEvent{2.5, 8, "", "", {}, "", 0, true}),
            R"({"event": "command", "t": 2.5, "request": 8, "set": "", "intent": "", )"
            R"("slots": {}, "text": "", "confidence": 0, "rejected": true})");
}

TEST(Event, StringsAreEscaped) {
  EXPECT_EQ(ToJson(ErrorEvent{1, "audio", "a \"b\"\\\n\x01"}),
            R"({"event": "error", "t": 1, "stage": "audio", "message": "a \"b\"\\\n\u0001"})");
}

// Bytes that are not UTF-8 (a file name, a sysfs attribute) made lines json.loads rejected.
TEST(Event, StringsAreValidUtf8) {
  EXPECT_EQ(ToJson(AudioEvent{0, "bad\xffname.flac", 1, 16000, 1}),
            "{\"event\": \"audio\", \"t\": 0, \"file\": \"bad\xef\xbf\xbdname.flac\", "
            "\"duration\": 1, \"rate\": 16000, \"channels\": 1}");
  EXPECT_EQ(ToJson(ErrorEvent{1, "governor", "caf\xc3\xa9 \x1f"}),
            "{\"event\": \"error\", \"t\": 1, \"stage\": \"governor\", \"message\": "
            "\"caf\xc3\xa9 \\u001f\"}");
}

TEST(Event, FrameTimesPrintShort) {
  EXPECT_EQ(ToJson(SpeechStartEvent{12 / 100.0}), R"({"event": "speech_start", "t": 0.12})");
}

}  // namespace
}  // namespace earshot::statemachine
