// earshot-wyoming's parts without sockets: the event reader (wyoming/event_reader.h) on the
// protocol's own examples, split anywhere, and on each kind of bad input; the encoder; --uri;
// audio::PcmStream's conversion of network PCM.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "audio/pcm_stream.h"
#include "wyoming/event_reader.h"
#include "wyoming/uri.h"

namespace earshot::wyoming {
namespace {

struct Read {
  std::vector<Event> events;
  std::string error;
};

Read ReadAll(std::string_view bytes, size_t piece, const ReaderLimits& limits = {}) {
  Read out;
  EventReader reader(limits);
  for (size_t at = 0; at < bytes.size();) {
    std::string_view rest = bytes.substr(at, std::min(piece, bytes.size() - at));
    at += rest.size();
    while (!rest.empty()) {
      std::optional<Event> event;
      Result<size_t> used = reader.Feed(rest, &event);
      if (!used.ok()) {
        out.error = used.error().message;
        return out;
      }
      rest.remove_prefix(*used);
      if (event) out.events.push_back(*event);
    }
  }
  return out;
}

// Header data, a data section merged over it, a payload, then an event with none of them.
const std::string kStream =
    "{\"type\": \"audio-chunk\", \"data\": {\"rate\": 16000, \"width\": 2}, \"data_length\": 30, "
    "\"payload_length\": 4, \"version\": \"1.5.0\"}\n"
    "{\"width\": 4, \"channels\": 2}  \n"
    "\x01\x02\x03\x04"
    "{\"type\": \"audio-stop\"}\n";

TEST(WyomingReader, ReadsTheDescriptionsFormatSplitAnywhere) {
  for (size_t piece : {size_t{1}, size_t{2}, size_t{7}, kStream.size()}) {
    Read r = ReadAll(kStream, piece);
    ASSERT_EQ(r.error, "") << piece;
    ASSERT_EQ(r.events.size(), 2u) << piece;
    EXPECT_EQ(r.events[0].type, "audio-chunk");
    EXPECT_EQ(r.events[0].data, nlohmann::json({{"rate", 16000}, {"width", 4}, {"channels", 2}}));
    EXPECT_EQ(r.events[0].payload, (std::vector<uint8_t>{1, 2, 3, 4}));
    EXPECT_EQ(r.events[1].type, "audio-stop");
    EXPECT_TRUE(r.events[1].data.empty());
  }
}

TEST(WyomingReader, EncodedEventsReadBack) {
  Event e{"detection", {{"name", "computer"}, {"timestamp", 1050}}, {9, 8, 7}};
  Read r = ReadAll(Encode(e) + Encode({"not-detected", nlohmann::json::object(), {}}), 3);
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.events.size(), 2u);
  EXPECT_EQ(r.events[0].type, "detection");
  EXPECT_EQ(r.events[0].data, e.data);
  EXPECT_EQ(r.events[0].payload, e.payload);
  EXPECT_EQ(Encode({"not-detected", nlohmann::json::object(), {}}),
            "{\"type\":\"not-detected\"}\n");
}

TEST(WyomingReader, BadInputIsAnErrorNamingIt) {
  const ReaderLimits limits{64, 32, 100};
  const std::pair<std::string, std::string> cases[] = {
      {std::string(65, ' '), "header line over 64 bytes"},
      {"{\"type\": \"a\", \"payload_length\": 101}\n", "payload_length 101 over the limit of 100"},
      {"{\"type\": \"a\", \"data_length\": 33}\n", "data_length 33 over the limit of 32"},
      {"{\"type\": \"a\", \"data_length\": -1}\n", "data_length -1: expected a whole number"},
      {"{\"type\": \"a\", \"payload_length\": 1.5}\n", "payload_length 1.5: expected a whole"},
      {"{\"type\": \"a\", \"payload_length\": \"3\"}\n", "payload_length \"3\": expected a whole"},
      {"{\"type\": \"a\", \"data_length\": 2}\n[]", "a: data section is not a JSON object"},
      {"{\"type\": \"a\", \"data_length\": 3}\n{x}", "a: data section is not valid JSON"},
      {"{\"type\": \"a\", \"data\": 5}\n", "a: data is not a JSON object"},
      {"{\"type\": 5}\n", "without a type"},
      {"{\"type\": \"\"}\n", "without a type"},
      {"[1]\n", "header line is not a JSON object"},
      {"{\"type\": \"\xff\"}\n", "header line is not valid JSON"},
      {"\n", "header line is not valid JSON"},
  };
  for (const auto& [bytes, error] : cases) {
    Read r = ReadAll(bytes, 5, limits);
    EXPECT_NE(r.error.find(error), std::string::npos) << bytes << " -> " << r.error;
  }
}

TEST(WyomingReader, IdleOnlyBetweenEvents) {
  EventReader reader;
  std::optional<Event> event;
  EXPECT_TRUE(reader.idle());
  ASSERT_TRUE(reader.Feed("{\"type\": \"a\", \"payload_length\": 2}\nx", &event).ok());
  EXPECT_FALSE(event.has_value());
  EXPECT_FALSE(reader.idle());  // a client leaving now leaves mid-payload
  ASSERT_TRUE(reader.Feed("y", &event).ok());
  EXPECT_TRUE(event.has_value());
  EXPECT_TRUE(reader.idle());
}

TEST(WyomingUri, ParsesTheServicesConvention) {
  auto tcp = ListenUri::Parse("tcp://0.0.0.0:10400");
  ASSERT_TRUE(tcp.ok());
  EXPECT_EQ(tcp->host, "0.0.0.0");
  EXPECT_EQ(tcp->port, 10400);
  auto v6 = ListenUri::Parse("tcp://[::1]:10300");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
  auto unix_uri = ListenUri::Parse("unix:///run/earshot/wyoming.sock");
  ASSERT_TRUE(unix_uri.ok());
  EXPECT_EQ(unix_uri->path, "/run/earshot/wyoming.sock");
  for (const char* bad :
       {"http://x:1", "tcp://host", "tcp://:1", "tcp://h:70000", "tcp://h:1x", "unix://"}) {
    auto r = ListenUri::Parse(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find(bad), std::string::npos) << r.error().message;
  }
}

std::vector<int16_t> Convert(const audio::PcmFormat& format, const std::vector<uint8_t>& bytes,
                             size_t piece) {
  auto stream = audio::PcmStream::Create(format, "high");
  EXPECT_TRUE(stream.ok());
  std::vector<int16_t> out;
  auto keep = [&out](const audio::Frame& f) { out.insert(out.end(), f.begin(), f.end()); };
  for (size_t at = 0; at < bytes.size(); at += piece) {
    const size_t n = std::min(piece, bytes.size() - at);
    EXPECT_TRUE((*stream)->Push({bytes.data() + at, n}, keep).ok());
  }
  EXPECT_TRUE((*stream)->Finish(keep).ok());
  return out;
}

TEST(PcmStream, SixteenKiloHertzMonoPassesExactlyInAnyPieces) {
  std::vector<int16_t> samples(1000);
  for (size_t i = 0; i < samples.size(); ++i) samples[i] = static_cast<int16_t>(i * 97 - 30000);
  std::vector<uint8_t> bytes(samples.size() * 2);
  for (size_t i = 0; i < samples.size(); ++i) {
    bytes[2 * i] = static_cast<uint8_t>(samples[i] & 0xff);
    bytes[2 * i + 1] = static_cast<uint8_t>((samples[i] >> 8) & 0xff);
  }
  for (size_t piece : {size_t{1}, size_t{3}, size_t{320}, bytes.size()}) {
    std::vector<int16_t> out = Convert({16000, 2, 1}, bytes, piece);
    ASSERT_EQ(out.size(), 1120u);  // 1000 samples, the last frame padded with zeros
    EXPECT_TRUE(std::equal(samples.begin(), samples.end(), out.begin())) << piece;
    EXPECT_EQ(out.back(), 0);
  }
}

TEST(PcmStream, WidthsAndChannelsScaleAndAverage) {
  // One sample frame of two channels at 16 kHz: 24-bit 0x400000 (0.5) and 0x000000 -> 0.25.
  std::vector<uint8_t> frame24 = {0x00, 0x00, 0x40, 0x00, 0x00, 0x00};
  EXPECT_EQ(Convert({16000, 3, 2}, frame24, 4).front(), 8192);
  // 8-bit signed, one channel: -64 -> -0.5; 32-bit: 0x80000000 -> -1.
  EXPECT_EQ(Convert({16000, 1, 1}, {0xc0}, 1).front(), -16384);
  EXPECT_EQ(Convert({16000, 4, 1}, {0, 0, 0, 0x80}, 1).front(), -32768);
}

TEST(PcmStream, FortyEightKiloHertzStereoKeepsATone) {
  // 1 s of a 440 Hz tone at 48 kHz stereo -> about 1 s at 16 kHz with the tone's amplitude.
  std::vector<uint8_t> bytes;
  for (int i = 0; i < 48000; ++i) {
    const auto v = static_cast<int16_t>(std::lround(8000 * std::sin(2 * M_PI * 440 * i / 48000.0)));
    for (int c = 0; c < 2; ++c) {
      bytes.push_back(static_cast<uint8_t>(v & 0xff));
      bytes.push_back(static_cast<uint8_t>((v >> 8) & 0xff));
    }
  }
  std::vector<int16_t> out = Convert({48000, 2, 2}, bytes, 3840);
  EXPECT_NEAR(static_cast<double>(out.size()), 16000, 200);
  int16_t peak = 0;
  for (size_t i = 2000; i < 14000; ++i) peak = std::max<int16_t>(peak, out[i]);
  EXPECT_NEAR(peak, 8000, 100);
}

TEST(PcmStream, ImpossibleFormatsAreRefusedWithTheirUnits) {
  EXPECT_NE(audio::PcmStream::Create({0, 2, 1}, "high").error().message.find("rate 0 Hz"),
            std::string::npos);
  EXPECT_NE(audio::PcmStream::Create({16000, 5, 1}, "high").error().message.find("width 5 bytes"),
            std::string::npos);
  EXPECT_NE(audio::PcmStream::Create({16000, 2, 0}, "high").error().message.find("channels 0"),
            std::string::npos);
}

// Issue 78: audio-start at 1 Hz made the converter allocate 2048 x 16000 frames (190 MB a
// header). Rates are telephone to studio, and the converter's buffers follow the chunk.
TEST(PcmStream, RatesAreTelephoneToStudio) {
  for (int rate : {1, 4000, 7999, 192001, 384000}) {
    auto stream = audio::PcmStream::Create({rate, 2, 1}, "high");
    ASSERT_FALSE(stream.ok()) << rate;
    EXPECT_NE(stream.error().message.find("expected 8000 to 192000"), std::string::npos)
        << stream.error().message;
  }
  for (int rate : {8000, 11025, 192000}) {
    EXPECT_TRUE(audio::PcmStream::Create({rate, 2, 1}, "high").ok()) << rate;
  }
  EXPECT_FALSE(audio::Converter::Create(3999, 1, "high", 2048).ok());
  EXPECT_TRUE(audio::Converter::Create(4000, 1, "high", 2048).ok());
}

}  // namespace
}  // namespace earshot::wyoming
