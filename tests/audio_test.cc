#include <gtest/gtest.h>
#include <sndfile.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <random>
#include <tuple>
#include <vector>

#include "audio/converter.h"
#include "audio/frame_source.h"
#include "audio/ring_buffer.h"
#include "tests/temp_path.h"

namespace earshot::audio {
namespace {

// Writes `seconds` of a sine (amplitude 0.5) on every channel with libsndfile.
std::string WriteSine(const std::string& name, int format, int rate, int channels, double seconds,
                      double hz = 440.0) {
  const std::string path = testing_util::TestTempPath(name);
  SF_INFO info{};
  info.samplerate = rate;
  info.channels = channels;
  info.format = format;
  SNDFILE* f = sf_open(path.c_str(), SFM_WRITE, &info);
  EXPECT_NE(f, nullptr) << sf_strerror(nullptr);
  const auto frames = static_cast<size_t>(seconds * rate);
  std::vector<float> data(frames * channels);
  for (size_t i = 0; i < frames; ++i) {
    const double v = 0.5 * std::sin(2 * std::numbers::pi * hz * static_cast<double>(i) / rate);
    for (int c = 0; c < channels; ++c) data[i * channels + c] = static_cast<float>(v);
  }
  sf_writef_float(f, data.data(), static_cast<sf_count_t>(frames));
  sf_close(f);
  return path;
}

struct ReadResult {
  std::vector<int16_t> samples;
  SourceInfo info;
};

Result<ReadResult> ReadAll(const std::string& path, const FileSourceOptions& options = {}) {
  Result<std::unique_ptr<FileSource>> source = FileSource::Open(path, options);
  if (!source.ok()) return source.error();
  ReadResult r;
  Frame frame;
  for (;;) {
    Result<bool> more = (*source)->Next(frame);
    if (!more.ok()) return more.error();
    if (!*more) break;
    r.samples.insert(r.samples.end(), frame.begin(), frame.end());
  }
  r.info = (*source)->info();
  return r;
}

// Amplitude of `hz` in `x` at 16 kHz (single-bin DFT), relative to full scale.
double ToneAmplitude(const std::vector<int16_t>& x, double hz, size_t skip) {
  double re = 0, im = 0;
  const size_t n = x.size() - 2 * skip;
  for (size_t i = skip; i < skip + n; ++i) {
    const double w = 2 * std::numbers::pi * hz * static_cast<double>(i) / kSampleRate;
    re += x[i] * std::cos(w);
    im += x[i] * std::sin(w);
  }
  return 2 * std::hypot(re, im) / static_cast<double>(n) / 32768.0;
}

TEST(FileSource, SixteenKhzInt16IsBitExact) {
  const std::string path = testing_util::TestTempPath("exact.wav");
  SF_INFO info{};
  info.samplerate = 16000;
  info.channels = 1;
  info.format = SF_FORMAT_WAV | SF_FORMAT_PCM_16;
  std::vector<int16_t> written(1234);
  for (size_t i = 0; i < written.size(); ++i) written[i] = static_cast<int16_t>(i * 53 - 32768);
  SNDFILE* f = sf_open(path.c_str(), SFM_WRITE, &info);
  ASSERT_NE(f, nullptr);
  sf_writef_short(f, written.data(), static_cast<sf_count_t>(written.size()));
  sf_close(f);

  Result<ReadResult> r = ReadAll(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->samples.size(), 8 * kFrameSamples);  // 1234 samples -> 8 frames, last zero-padded
  for (size_t i = 0; i < written.size(); ++i) ASSERT_EQ(r->samples[i], written[i]) << i;
  for (size_t i = written.size(); i < r->samples.size(); ++i) ASSERT_EQ(r->samples[i], 0);
  EXPECT_EQ(r->info.frames, 1234);

  // ReadFile: the same samples, or as many whole frames as reach max_samples.
  Result<std::vector<int16_t>> all = ReadFile(path);
  ASSERT_TRUE(all.ok()) << all.error().message;
  EXPECT_EQ(*all, r->samples);
  Result<std::vector<int16_t>> first = ReadFile(path, 300);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(*first, std::vector<int16_t>(r->samples.begin(), r->samples.begin() + 320));
}

// 16 kHz mono 16-bit files are read as stored (int16), the others as float and converted: the
// same samples either way (24-bit holds s * 2^8; two equal channels average to s), extremes too.
TEST(FileSource, SixteenBitReadAsStoredGivesTheFloatPathsSamples) {
  std::vector<int16_t> written(3210);
  std::mt19937 rng(7);
  for (size_t i = 0; i < written.size(); ++i) {
    written[i] = static_cast<int16_t>(i < 2 ? (i == 0 ? -32768 : 32767) : rng());
  }
  std::vector<std::vector<int16_t>> read;
  for (auto [name, format, channels] : {std::tuple{"s16.wav", SF_FORMAT_PCM_16, 1},
                                        std::tuple{"s16.flac", SF_FORMAT_PCM_16, 1},
                                        std::tuple{"s24.wav", SF_FORMAT_PCM_24, 1},
                                        std::tuple{"s16x2.wav", SF_FORMAT_PCM_16, 2}}) {
    const std::string path = testing_util::TestTempPath(name);
    SF_INFO info{};
    info.samplerate = 16000;
    info.channels = channels;
    info.format = format | (std::string(name).ends_with("flac") ? SF_FORMAT_FLAC : SF_FORMAT_WAV);
    std::vector<int16_t> interleaved;
    for (int16_t v : written) interleaved.insert(interleaved.end(), channels, v);
    SNDFILE* f = sf_open(path.c_str(), SFM_WRITE, &info);
    ASSERT_NE(f, nullptr) << name;
    sf_writef_short(f, interleaved.data(), static_cast<sf_count_t>(written.size()));
    sf_close(f);
    Result<ReadResult> r = ReadAll(path);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->info.frames, static_cast<int64_t>(written.size())) << name;
    read.push_back(r->samples);
  }
  ASSERT_EQ(std::vector<int16_t>(read[0].begin(), read[0].begin() + 3210), written);
  for (size_t i = 1; i < read.size(); ++i) EXPECT_EQ(read[i], read[0]) << i;
}

struct FormatCase {
  const char* name;
  int format;
  int rate;
  int channels;
  friend void PrintTo(const FormatCase& c, std::ostream* os) { *os << c.name; }
};

class FileSourceFormats : public testing::TestWithParam<FormatCase> {};

TEST_P(FileSourceFormats, ConvertsTo16kMonoKeepingTheTone) {
  const FormatCase& c = GetParam();
  const std::string path = WriteSine(c.name, c.format, c.rate, c.channels, 1.0);
  Result<ReadResult> r = ReadAll(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->info.rate, c.rate);
  EXPECT_EQ(r->info.channels, c.channels);
  EXPECT_EQ(r->info.frames, c.rate);
  // One second at 16 kHz, within the resampler's delay and the last partial frame.
  EXPECT_NEAR(static_cast<double>(r->samples.size()), 16000.0, kFrameSamples);
  const double tolerance = (c.format & SF_FORMAT_SUBMASK) == SF_FORMAT_PCM_U8 ? 0.02 : 0.005;
  EXPECT_NEAR(ToneAmplitude(r->samples, 440, 800), 0.5, tolerance);
  EXPECT_LT(ToneAmplitude(r->samples, 1000, 800), 0.005);
}

INSTANTIATE_TEST_SUITE_P(
    Formats, FileSourceFormats,
    testing::Values(FormatCase{"u8.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_U8, 16000, 1},
                    FormatCase{"f32.wav", SF_FORMAT_WAV | SF_FORMAT_FLOAT, 16000, 1},
                    FormatCase{"r8k.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16, 8000, 1},
                    FormatCase{"r48k.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16, 48000, 1},
                    FormatCase{"r44k.flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_16, 44100, 1},
                    FormatCase{"stereo.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16, 48000, 2},
                    FormatCase{"six.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_24, 16000, 6},
                    FormatCase{"six48.flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_16, 48000, 6}),
    [](const auto& param_info) {
      std::string n = param_info.param.name;
      for (char& ch : n) if (ch == '.') ch = '_';
      return n;
    });

TEST(FileSource, DownmixAveragesChannels) {
  const std::string path = testing_util::TestTempPath("lr.wav");
  SF_INFO info{};
  info.samplerate = 16000;
  info.channels = 2;
  info.format = SF_FORMAT_WAV | SF_FORMAT_PCM_16;
  std::vector<int16_t> lr = {1000, 3000, -2000, 0, 32767, 32767};
  SNDFILE* f = sf_open(path.c_str(), SFM_WRITE, &info);
  ASSERT_NE(f, nullptr);
  sf_writef_short(f, lr.data(), 3);
  sf_close(f);
  Result<ReadResult> r = ReadAll(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->samples[0], 2000);
  EXPECT_EQ(r->samples[1], -1000);
  EXPECT_EQ(r->samples[2], 32767);
}

// Every bad input gives an error naming the file and the cause.
void ExpectError(const std::string& path, const std::string& cause) {
  Result<ReadResult> r = ReadAll(path);
  ASSERT_FALSE(r.ok()) << path << " was accepted";
  EXPECT_NE(r.error().message.find(path), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find(cause), std::string::npos) << r.error().message;
  Result<std::vector<int16_t>> samples = ReadFile(path);
  ASSERT_FALSE(samples.ok()) << path << " was accepted by ReadFile";
  EXPECT_EQ(samples.error().message, r.error().message);
}

TEST(FileSource, MissingFile) {
  ExpectError(testing_util::TestTempPath("missing.wav"), "No such file");
}

TEST(FileSource, EmptyFile) {
  const std::string path = testing_util::TestTempPath("empty.wav");
  std::ofstream{path};
  ExpectError(path, "empty file");
}

TEST(FileSource, TextFileRenamedWav) {
  const std::string path = testing_util::TestTempPath("text.wav");
  std::ofstream(path) << "this is not a wave file, just some words\n";
  ExpectError(path, "not a readable audio file");
}

TEST(FileSource, Directory) { ExpectError(testing::TempDir(), "directory"); }

void Truncate(const std::string& path, double keep) {
  const auto size = std::filesystem::file_size(path);
  std::filesystem::resize_file(path, static_cast<uintmax_t>(static_cast<double>(size) * keep));
}

TEST(FileSource, TruncatedWav) {
  const std::string path = WriteSine("cut.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16, 16000, 1, 2.0);
  Truncate(path, 0.5);
  ExpectError(path, "truncated");
}

TEST(FileSource, HeaderOnlyWav) {
  const std::string path = WriteSine("hdr.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16, 16000, 1, 1.0);
  std::filesystem::resize_file(path, 44);
  Result<ReadResult> r = ReadAll(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find(path), std::string::npos);
}

TEST(FileSource, TruncatedFlac) {
  const std::string path =
      WriteSine("cut.flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_16, 16000, 1, 2.0, 1234.5);
  Truncate(path, 0.5);
  ExpectError(path, "");
}

TEST(FileSource, CorruptFlacBody) {
  const std::string path =
      WriteSine("corrupt.flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_16, 16000, 1, 2.0, 777.0);
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(static_cast<std::streamoff>(std::filesystem::file_size(path) / 3));
  const std::string garbage(2000, '\x5a');
  f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  f.close();
  ExpectError(path, "");
}

// A FLAC whose STREAMINFO leaves the length open (total samples 0, as a recorder streaming it
// writes; libsndfile reports SF_COUNT_MAX frames) is read to the end of its data.
TEST(FileSource, FlacOfUnknownLength) {
  const std::string path =
      WriteSine("open.flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_16, 16000, 1, 1.0, 500.0);
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  char streaminfo[26];
  f.read(streaminfo, sizeof streaminfo);
  ASSERT_EQ(std::string(streaminfo, 4), "fLaC");
  // "fLaC", the block header, then 10 bytes of block and frame sizes and 28 bits of rate,
  // channels and depth: the 36-bit total is byte 21's low nibble and bytes 22-25.
  streaminfo[21] = static_cast<char>(streaminfo[21] & 0xf0);
  std::fill(streaminfo + 22, streaminfo + 26, '\0');
  f.seekp(0);
  f.write(streaminfo, sizeof streaminfo);
  f.close();
  Result<ReadResult> r = ReadAll(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->info.frames, 16000);
  EXPECT_EQ(r->samples.size(), 16000u);

  // The same header with no frames after its metadata blocks: no samples at all.
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t end = 4;
  for (bool last = false; !last && end + 4 <= bytes.size();) {
    const auto* h = reinterpret_cast<const unsigned char*>(bytes.data() + end);
    last = (h[0] & 0x80) != 0;
    end += 4 + (size_t{h[1]} << 16 | size_t{h[2]} << 8 | h[3]);
  }
  const std::string none = testing_util::TestTempPath("none.flac");
  std::ofstream(none, std::ios::binary) << bytes.substr(0, end);
  ExpectError(none, "holds no audio samples");
}

// Float WAVs can hold values no sound has; they are refused where they occur, whatever the rate.
TEST(FileSource, NonFiniteFloatSamples) {
  for (const auto& [name, rate, bad] :
       {std::tuple{"nan.wav", 16000, NAN}, std::tuple{"inf48.wav", 48000, -INFINITY}}) {
    const std::string path = testing_util::TestTempPath(name);
    SF_INFO info{};
    info.samplerate = rate;
    info.channels = 2;
    info.format = SF_FORMAT_WAV | SF_FORMAT_FLOAT;
    std::vector<float> lr(2 * 20000, 0.25f);
    lr[2 * 12345 + 1] = bad;
    SNDFILE* f = sf_open(path.c_str(), SFM_WRITE, &info);
    ASSERT_NE(f, nullptr);
    sf_writef_float(f, lr.data(), 20000);
    sf_close(f);
    ExpectError(path, std::string("frame 12345 of channel 2 is ") +
                          (std::isnan(bad) ? "NaN" : "infinite"));
  }
}

TEST(FileSource, DevicesAreNotFiles) { ExpectError("/dev/zero", "not a regular file"); }

TEST(Converter, RejectsUnknownQuality) {
  EXPECT_FALSE(Converter::Create(48000, 1, "best", 4800).ok());
  EXPECT_TRUE(Converter::Create(48000, 1, "very_high", 4800).ok());
}

TEST(FloatToInt16, RoundsAndSaturates) {
  const std::vector<float> in = {0.0f, 0.5f, -1.0f, 1.0f, 2.0f, -3.0f, 1.4f / 32768, 1.6f / 32768};
  std::vector<int16_t> out(in.size());
  FloatToInt16(in, out);
  EXPECT_EQ(out, (std::vector<int16_t>{0, 16384, -32768, 32767, 32767, -32768, 1, 2}));
}

// The vector path (NEON on aarch64: eight samples at a time) and the tail against the rule
// itself, on random samples past full scale, exact halves of an int16 step (ties to even) and
// infinities, for every length up to 40.
TEST(FloatToInt16, EveryLengthGivesTheScalarRule) {
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> level(-1.5f, 1.5f);
  std::uniform_int_distribution<int> step(-33000, 33000);
  for (size_t length = 0; length <= 40; ++length) {
    std::vector<float> in(length);
    for (size_t i = 0; i < length; ++i) {
      in[i] = i % 3 == 0 ? level(rng) : i % 3 == 1 ? (static_cast<float>(step(rng)) + 0.5f) / 32768.0f
            : i % 6 == 2 ? INFINITY : -INFINITY;
    }
    std::vector<int16_t> out(length), expected(length);
    FloatToInt16(in, out);
    for (size_t i = 0; i < length; ++i) {
      const float scaled = std::clamp(in[i] * 32768.0f, -32768.0f, 32767.0f);
      expected[i] = static_cast<int16_t>(std::lrintf(scaled));
    }
    ASSERT_EQ(out, expected) << length;
  }
}

Frame FilledFrame(int16_t value) {
  Frame frame;
  frame.fill(value);
  return frame;
}

TEST(FrameRing, HoldsTheNewestFramesByStreamIndex) {
  FrameRing ring(3, 2);
  EXPECT_FALSE(ring.Holds(0));
  for (int16_t i = 0; i < 5; ++i) {
    const std::vector<int16_t> row = {i, static_cast<int16_t>(-i)};
    ring.Push(FilledFrame(i), row);
  }
  EXPECT_EQ(ring.begin(), 2);
  EXPECT_EQ(ring.end(), 5);
  EXPECT_FALSE(ring.Holds(1));
  for (int64_t k = 2; k < 5; ++k) {
    ASSERT_TRUE(ring.Holds(k));
    EXPECT_EQ(ring.Samples(k).size(), static_cast<size_t>(kFrameSamples));
    EXPECT_EQ(ring.Samples(k).front(), k);
    EXPECT_EQ(ring.Samples(k).back(), k);
    EXPECT_EQ(ring.Row(k)[0], k);
    EXPECT_EQ(ring.Row(k)[1], -k);
  }
}

TEST(FrameRing, ResetStartsAtTheGivenIndex) {
  FrameRing ring(4, 1);
  const std::vector<int16_t> row = {7};
  ring.Push(FilledFrame(1), row);
  ring.Reset(100);
  EXPECT_FALSE(ring.Holds(0));
  EXPECT_EQ(ring.begin(), 100);
  ring.Push(FilledFrame(2), row);
  ASSERT_TRUE(ring.Holds(100));
  EXPECT_EQ(ring.Samples(100)[0], 2);
}

TEST(FrameRing, DefaultPreRollHoldsOneAndAHalfSeconds) {
  FrameRing ring(1500 / kFrameMs, 40);
  const std::vector<int16_t> row(40, 0);
  for (int i = 0; i < 500; ++i) ring.Push(FilledFrame(static_cast<int16_t>(i)), row);
  EXPECT_EQ(ring.begin(), 350);  // 150 frames of 10 ms = 1.5 s back
  EXPECT_EQ(ring.Samples(499)[0], 499);
}

}  // namespace
}  // namespace earshot::audio
