// The VAD: bit-exact against the training script's integer reference, model-file validation, and
// behaviour on signals that must not hold it on.
#include "models/vad/vad.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <numbers>
#include <random>
#include <sstream>
#include <vector>

#include "features/front_end.h"
#include "models/model_file.h"
#include "options/stage_options.h"
#include "tests/from_env.h"
#include "tests/temp_path.h"

namespace earshot::vad {
namespace {

using testing_util::FromEnv;

// The committed model and its vectors, or another pair (the training smoke test sets these).
const std::string kModel =
    FromEnv("EARSHOT_VAD_MODEL", std::string(EARSHOT_SOURCE_DIR) + "/models/vad/vad.eshm");
const std::string kVectors =
    FromEnv("EARSHOT_VAD_VECTORS", std::string(EARSHOT_SOURCE_DIR) + "/tests/data/vad_vectors.txt");

// The [vad] defaults of the options table, which the daemon runs.
VadConfig TableDefaults() { return *options::BindVad(config::Config::Defaults()); }

std::shared_ptr<const VadModel> LoadModel() {
  auto model = VadModel::Load(kModel, features::FrontEndConfig{});
  EXPECT_TRUE(model.ok()) << model.error().message;
  return model.ok() ? *model : nullptr;
}

struct VectorLine {
  std::vector<int16_t> logmel;
  std::vector<int> inputs;
  int score;
};

std::vector<VectorLine> ReadVectors() {
  std::ifstream in(kVectors);
  std::vector<VectorLine> lines;
  std::string text;
  while (std::getline(in, text)) {
    if (text.empty() || text[0] == '#') continue;
    std::istringstream s(text);
    VectorLine line;
    std::string token;
    int part = 0;
    while (s >> token) {
      if (token == "|") {
        ++part;
      } else if (part == 0) {
        line.logmel.push_back(static_cast<int16_t>(std::stoi(token)));
      } else if (part == 1) {
        line.inputs.push_back(std::stoi(token));
      } else {
        line.score = std::stoi(token);
      }
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

TEST(Vad, BitExactWithTheTrainingReference) {
  auto model = LoadModel();
  ASSERT_NE(model, nullptr);
  const std::vector<VectorLine> vectors = ReadVectors();
  ASSERT_GT(vectors.size(), 100u);
  VadConfig config = TableDefaults();
  config.min_speech_frames = 0;
  config.smooth_half_frames = 0;  // the raw MLP scores, as the reference computes them
  VadSession session(model, config);
  std::vector<VadFrame> out;
  size_t scored = 0;
  for (size_t t = 0; t < vectors.size(); ++t) {
    out.clear();
    session.Process(vectors[t].logmel, out);
    const auto inputs = session.last_inputs();
    ASSERT_EQ(std::vector<int>(inputs.begin(), inputs.end()), vectors[t].inputs) << "frame " << t;
    if (vectors[t].score < 0) {
      EXPECT_TRUE(out.empty());
      continue;
    }
    ASSERT_EQ(out.size(), 1u) << "frame " << t;
    EXPECT_EQ(out[0].index, static_cast<int64_t>(t) - model->lookahead());
    ASSERT_EQ(out[0].score_q15, vectors[t].score) << "frame " << t;
    ++scored;
  }
  EXPECT_GT(scored, 100u);
  out.clear();
  session.Flush(out);
  EXPECT_EQ(out.size(), static_cast<size_t>(model->lookahead()));
}

// The input transform's NEON loop (aarch64; elsewhere both take the plain loop) against the plain
// one: random levels, steps between the int16 extremes, and a band stuck at each end.
TEST(Vad, SimdAndPlainTransformsGiveTheSameInputs) {
  auto model = LoadModel();
  ASSERT_NE(model, nullptr);
  VadSession simd(model, VadConfig{}, true), plain(model, VadConfig{}, false);
  std::mt19937 rng(21);
  std::uniform_int_distribution<int> level(-32768, 32767), small(-600, 600);
  std::vector<int16_t> logmel(static_cast<size_t>(model->bands()));
  std::vector<VadFrame> a, b;
  for (int frame = 0; frame < 400; ++frame) {
    for (size_t i = 0; i < logmel.size(); ++i) {
      const int v = frame % 50 < 10 ? level(rng) : frame % 50 < 20 ? (frame % 2 ? 32767 : -32768)
                  : std::clamp(logmel[i] + small(rng), -32768, 32767);
      logmel[i] = static_cast<int16_t>(i == 0 ? -32768 : i == 1 ? 32767 : v);
    }
    simd.Process(logmel, a);
    plain.Process(logmel, b);
    const auto x = simd.last_inputs(), y = plain.last_inputs();
    ASSERT_EQ(std::vector<int8_t>(x.begin(), x.end()), std::vector<int8_t>(y.begin(), y.end()))
        << frame;
  }
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i].score_q15, b[i].score_q15) << i;
}

// Runs a signal through the front end and the VAD; the share of frames decided as speech.
double SpeechShare(const std::vector<int16_t>& x, size_t skip_frames = 0) {
  auto fe = features::FrontEnd::Create(features::FrontEndConfig{});
  VadSession session(LoadModel(), TableDefaults());
  std::vector<VadFrame> out;
  for (size_t i = 0; i + 160 <= x.size(); i += 160) {
    (*fe)->Process(std::span<const int16_t>(x).subspan(i, 160));
    session.Process((*fe)->logmel_db_q8(), out);
  }
  session.Flush(out);
  EXPECT_EQ(out.size(), x.size() / 160);
  size_t speech = 0, counted = 0;
  for (const VadFrame& f : out) {
    if (static_cast<size_t>(f.index) < skip_frames) continue;
    speech += f.speech;
    ++counted;
  }
  return static_cast<double>(speech) / static_cast<double>(std::max<size_t>(counted, 1));
}

std::vector<int16_t> Synth(double seconds, const std::function<double(double, std::mt19937&)>& f) {
  std::mt19937 rng(11);
  std::vector<int16_t> x(static_cast<size_t>(seconds * 16000));
  for (size_t n = 0; n < x.size(); ++n) {
    x[n] = static_cast<int16_t>(std::clamp(std::lround(f(static_cast<double>(n) / 16000, rng)), -32768L, 32767L));
  }
  return x;
}

TEST(Vad, SteadyToneHumAndNoiseDoNotHoldItOn) {
  const double pi = std::numbers::pi;
  for (double level : {0.01, 0.1, 0.5}) {
    const double a = 32767 * level;
    const auto tone = Synth(10, [&](double t, std::mt19937&) { return a * std::sin(2 * pi * 440 * t); });
    const auto hum = Synth(10, [&](double t, std::mt19937&) {
      double v = 0;
      for (int k = 1; k <= 6; ++k) v += a / (2 * k) * std::sin(2 * pi * 50 * k * t);
      return v;
    });
    std::normal_distribution<double> gauss(0, a / 3);
    const auto white = Synth(10, [&](double, std::mt19937& rng) { return gauss(rng); });
    // After the first second (the noise floor settles), almost no frame is speech.
    EXPECT_LT(SpeechShare(tone, 100), 0.05) << "440 Hz tone at " << level;
    EXPECT_LT(SpeechShare(hum, 100), 0.05) << "50 Hz hum at " << level;
    EXPECT_LT(SpeechShare(white, 100), 0.05) << "white noise at " << level;
  }
  EXPECT_EQ(SpeechShare(std::vector<int16_t>(160000, 0)), 0.0) << "digital silence";
}

// Malformed model files: each gives an error naming the file and the cause.
class VadModelFile : public testing::Test {
 protected:
  void SetUp() override {
    std::ifstream in(kModel, std::ios::binary);
    bytes_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    ASSERT_GT(bytes_.size(), 200u);
  }
  std::string Write(const std::vector<char>& bytes) {
    const std::string path = testing_util::TestTempPath("model.eshm");
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path;
  }
  // Rewrites the CRC so a deliberate header change is seen by its own check.
  void FixCrc(std::vector<char>& b) {
    const uint32_t crc = models::Crc32({reinterpret_cast<const uint8_t*>(b.data()), b.size() - 4});
    std::memcpy(&b[b.size() - 4], &crc, 4);
  }
  std::string LoadError(const std::vector<char>& bytes,
                        const features::FrontEndConfig& fe = features::FrontEndConfig{}) {
    const std::string path = Write(bytes);
    auto model = VadModel::Load(path, fe);
    EXPECT_FALSE(model.ok());
    if (model.ok()) return "";
    EXPECT_NE(model.error().message.find(path), std::string::npos) << model.error().message;
    return model.error().message;
  }
  std::vector<char> bytes_;
};

TEST_F(VadModelFile, OnlyRegularFilesAreRead) {
  // A directory used to throw out of the reader (abort); a device read forever; a FIFO blocked.
  const std::string dir = testing_util::TestTempPath("model_dir");
  std::filesystem::create_directories(dir);
  const std::string fifo = testing_util::TestTempPath("model_fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  for (const auto& [path, cause] :
       {std::pair<std::string, std::string>{dir, "is a directory, not a model file"},
        {"/dev/zero", "not a regular file (a device or FIFO?)"},
        {fifo, "not a regular file (a device or FIFO?)"},
        {testing_util::TestTempPath("absent.eshm"), "cannot open: No such file or directory"}}) {
    auto model = VadModel::Load(path, features::FrontEndConfig{});
    ASSERT_FALSE(model.ok()) << path;
    EXPECT_EQ(model.error().message, path + ": " + cause);
  }
}

TEST_F(VadModelFile, NamesAreEscapedInMessages) {
  std::vector<char> b = bytes_;
  const char kind[] = "vad\x01\xff";
  std::memcpy(&b[8], kind, sizeof kind);  // the kind field, NUL-padded
  FixCrc(b);
  EXPECT_NE(LoadError(b).find("is a 'vad\\x01\\xff' model"), std::string::npos);
}

TEST_F(VadModelFile, Truncated) {
  std::vector<char> b(bytes_.begin(), bytes_.begin() + static_cast<ptrdiff_t>(bytes_.size() / 2));
  EXPECT_NE(LoadError(b).find("checksum"), std::string::npos);
  EXPECT_NE(LoadError(std::vector<char>(bytes_.begin(), bytes_.begin() + 10)).find("not an earshot model"),
            std::string::npos);
}

TEST_F(VadModelFile, BitFlipped) {
  std::vector<char> b = bytes_;
  b[b.size() / 2] ^= 0x10;
  EXPECT_NE(LoadError(b).find("checksum"), std::string::npos);
}

TEST_F(VadModelFile, WrongVersion) {
  std::vector<char> b = bytes_;
  b[4] = 9;
  FixCrc(b);
  EXPECT_NE(LoadError(b).find("version 9"), std::string::npos);
}

TEST_F(VadModelFile, WrongKind) {
  std::vector<char> b = bytes_;
  std::memcpy(&b[8], "kws-dscnn\0\0\0\0\0\0\0", 16);
  FixCrc(b);
  EXPECT_NE(LoadError(b).find("'kws-dscnn' model"), std::string::npos);
}

TEST_F(VadModelFile, WrongFeatures) {
  features::FrontEndConfig fe;
  fe.mel_bands = 32;
  EXPECT_NE(LoadError(bytes_, fe).find("features.mel_bands = 40"), std::string::npos);
}

TEST_F(VadModelFile, NotAModel) {
  EXPECT_NE(LoadError(std::vector<char>(300, 'x')).find("not an earshot model"), std::string::npos);
  auto missing = VadModel::Load("/nonexistent/vad.eshm", features::FrontEndConfig{});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("/nonexistent/vad.eshm"), std::string::npos);
}

// The decision over a scripted score sequence ("1" voice, "0" not), frame by frame.
std::string Decide(const std::string& voice, int min_speech, int hangover) {
  VadConfig config = TableDefaults();
  config.min_speech_frames = min_speech;
  config.hangover_frames = hangover;
  SpeechDecision decision(config);
  std::vector<VadFrame> out;
  for (size_t i = 0; i < voice.size(); ++i) {
    decision.Push(VadFrame{static_cast<int64_t>(i), static_cast<uint16_t>(voice[i] == '1' ? 30000 : 100),
                           false}, out);
  }
  decision.Flush(out);
  std::string speech;
  for (size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(out[i].index, static_cast<int64_t>(i));
    speech += out[i].speech ? '1' : '0';
  }
  return speech;
}

TEST(SpeechDecision, MinSpeechDropsShortBurstsAndKeepsTheRunsStart) {
  EXPECT_EQ(Decide("0011000111110000000000", 3, 0), "0000000111110000000000");
  EXPECT_EQ(Decide("0111000", 3, 0), "0111000");
  EXPECT_EQ(Decide("0110000", 3, 0), "0000000");
}

TEST(SpeechDecision, HangoverBridgesShortGaps) {
  EXPECT_EQ(Decide("111001100000000", 1, 2), "111111111000000");
  EXPECT_EQ(Decide("1110001", 1, 2), "1111101");
  EXPECT_EQ(Decide("000", 1, 5), "000");
}

TEST(ScoreSmoother, CentredMeanWithShorterEdges) {
  ScoreSmoother smoother(1);
  std::vector<VadFrame> out;
  const uint16_t scores[] = {300, 600, 0, 900, 30};
  for (int i = 0; i < 5; ++i) smoother.Push(VadFrame{i, scores[i], false}, out);
  EXPECT_EQ(out.size(), 4u);  // one frame of lag
  smoother.Flush(out);
  ASSERT_EQ(out.size(), 5u);
  const uint16_t expected[] = {450, 300, 500, 310, 465};  // (300+600)/2, (300+600+0)/3, ...
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(out[i].index, i);
    EXPECT_EQ(out[i].score_q15, expected[i]) << i;
  }
  ScoreSmoother off(0);
  out.clear();
  off.Push(VadFrame{0, 123, false}, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].score_q15, 123);
}

TEST(SpeechDecision, NoDelayWithoutMinSpeech) {
  VadConfig config = TableDefaults();
  config.min_speech_frames = 0;
  SpeechDecision decision(config);
  std::vector<VadFrame> out;
  decision.Push(VadFrame{0, 30000, false}, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].speech);
}

}  // namespace
}  // namespace earshot::vad
