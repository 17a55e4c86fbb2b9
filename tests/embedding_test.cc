// The speech embedding on the device's path: the front end's embedding log-mel against the float
// graph's (melspectrogram.onnx), the int8 network's integers against its specification
// (tools/train/embedding_import.py) and its values against the float graph's embeddings, the SIMD
// dot products against the plain ones, streaming against a window afresh, and the loader's checks.
// The reference values are tests/data/embedding_vectors.txt, written by embedding_import.py from
// the float graph on tools/samples/computer_request.flac: no ONNX, no npm here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "features/front_end.h"
#include "models/embedding/speech_embedding.h"
#include "models/int8_dot.h"
#include "models/model_file.h"
#include "tests/from_env.h"
#include "tests/read_samples.h"
#include "tests/temp_path.h"

namespace earshot::embedding {
namespace {

const std::string kSource = EARSHOT_SOURCE_DIR;
const std::string kModel = testing_util::FromEnv(
    "EARSHOT_EMBEDDING_MODEL", kSource + "/models/embedding/speech_embedding.eshm");
const std::string kVectors = kSource + "/tests/data/embedding_vectors.txt";
const std::string kSample = kSource + "/tools/samples/computer_request.flac";

struct Vectors {
  std::vector<std::vector<float>> mel;          // per frame, dB
  std::map<int, std::vector<float>> embedding;  // by last frame
  std::map<int, std::vector<int>> embedding_q;
};

Vectors ReadVectors() {
  Vectors v;
  std::ifstream in(kVectors);
  EXPECT_TRUE(in) << kVectors;
  std::string line, kind;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    int frame = 0;
    s >> kind >> frame;
    if (kind == "mel") {
      v.mel.emplace_back(std::istream_iterator<float>(s), std::istream_iterator<float>());
    } else if (kind == "float") {
      v.embedding[frame].assign(std::istream_iterator<float>(s), std::istream_iterator<float>());
    } else {
      v.embedding_q[frame].assign(std::istream_iterator<int>(s), std::istream_iterator<int>());
    }
  }
  return v;
}

// The front end's embedding log-mel of the bundled sample, frame by frame.
std::vector<std::vector<int16_t>> DeviceMel() {
  auto front_end = features::FrontEnd::Create(features::EmbeddingFrontEndConfig());
  EXPECT_TRUE(front_end.ok());
  const std::vector<int16_t> samples = testing_util::ReadSamples(kSample);
  std::vector<std::vector<int16_t>> frames;
  const size_t hop = 160;
  for (size_t i = 0; i + hop <= samples.size(); i += hop) {
    (*front_end)->Process(std::span(samples).subspan(i, hop));
    auto mel = (*front_end)->logmel_db_q8();
    frames.emplace_back(mel.begin(), mel.end());
  }
  return frames;
}

SpeechEmbedding LoadModel() {
  auto model = SpeechEmbedding::Load(kModel, features::EmbeddingFrontEndConfig());
  EXPECT_TRUE(model.ok()) << model.error().message;
  return std::move(model).value();
}

// The stream's embeddings, by last frame.
std::map<int, std::vector<int>> Stream(const SpeechEmbedding& model,
                                       const std::vector<std::vector<int16_t>>& mel, bool simd) {
  EmbeddingStream stream(model, simd);
  std::map<int, std::vector<int>> out;
  for (size_t t = 0; t < mel.size(); ++t) {
    if (auto e = stream.Push(mel[t])) out[static_cast<int>(t)].assign(e->begin(), e->end());
  }
  return out;
}

double Cosine(const std::vector<int>& q, float scale, const std::vector<float>& f) {
  double dot = 0, qq = 0, ff = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    const double x = q[i] * double{scale};
    dot += x * f[i];
    qq += x * x;
    ff += double{f[i]} * f[i];
  }
  return dot / std::sqrt(qq * ff);
}

TEST(EmbeddingMel, WithinAFifthOfADecibelOfTheFloatGraphPerBand) {
  const Vectors v = ReadVectors();
  const auto mel = DeviceMel();
  ASSERT_GE(mel.size(), v.mel.size() - 1);
  ASSERT_GT(v.mel.size(), 400u);
  for (int b = 0; b < SpeechEmbedding::kBands; ++b) {
    double sum = 0, worst = 0;
    for (size_t t = 0; t < std::min(mel.size(), v.mel.size()); ++t) {
      const double e = std::abs(mel[t][b] / 256.0 - v.mel[t][b]);
      sum += e;
      worst = std::max(worst, e);
    }
    const double mean = sum / static_cast<double>(std::min(mel.size(), v.mel.size()));
    EXPECT_LT(mean, 0.2) << "band " << b << ": mean |error| " << mean << " dB, max " << worst;
  }
}

TEST(SpeechEmbedding, StreamGivesTheSpecificationsIntegersWithPlainAndSimdDotProducts) {
  const SpeechEmbedding model = LoadModel();
  const Vectors v = ReadVectors();
  const auto mel = DeviceMel();
  std::printf("dot product kernel: %s\n", models::DotRowsKernel());
  const auto plain = Stream(model, mel, false);
  const auto simd = Stream(model, mel, true);
  EXPECT_EQ(plain, simd);
  ASSERT_EQ(plain.size(), v.embedding_q.size());
  for (const auto& [frame, expected] : v.embedding_q) {
    ASSERT_TRUE(plain.count(frame)) << "no embedding at frame " << frame;
    EXPECT_EQ(plain.at(frame), expected) << "frame " << frame;
  }
}

TEST(SpeechEmbedding, CloseToTheFloatGraphsEmbeddings) {
  const SpeechEmbedding model = LoadModel();
  const Vectors v = ReadVectors();
  const auto got = Stream(model, DeviceMel(), true);
  double sum = 0, worst = 1;
  for (const auto& [frame, expected] : v.embedding) {
    ASSERT_TRUE(got.count(frame));
    const double c = Cosine(got.at(frame), model.out_scale(), expected);
    sum += c;
    worst = std::min(worst, c);
  }
  const double mean = sum / static_cast<double>(v.embedding.size());
  std::printf("cosine to the float graph: mean %.4f, min %.4f over %zu embeddings\n", mean, worst,
              v.embedding.size());
  EXPECT_GT(mean, 0.99);
  EXPECT_GT(worst, 0.97);
}

TEST(SpeechEmbedding, StreamEqualsEachWindowAfresh) {
  const SpeechEmbedding model = LoadModel();
  const auto mel = DeviceMel();
  const auto streamed = Stream(model, mel, true);
  for (int last : {75, 155, 251}) {
    EmbeddingStream fresh(model);
    std::optional<std::span<const int8_t>> e;
    for (int t = last - model.window_frames() + 1; t <= last; ++t) e = fresh.Push(mel[t]);
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(std::vector<int>(e->begin(), e->end()), streamed.at(last)) << "frame " << last;
  }
}

TEST(SpeechEmbedding, ResetStartsAnew) {
  const SpeechEmbedding model = LoadModel();
  const auto mel = DeviceMel();
  EmbeddingStream stream(model);
  for (int t = 0; t < 100; ++t) stream.Push(mel[t]);
  stream.Reset();
  std::optional<std::span<const int8_t>> e;
  for (int t = 0; t < model.window_frames(); ++t) e = stream.Push(mel[t]);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(std::vector<int>(e->begin(), e->end()), Stream(model, mel, true).at(75));
}

TEST(SpeechEmbedding, TheNetworkIsTheGraphs) {
  const SpeechEmbedding model = LoadModel();
  EXPECT_EQ(model.layers().size(), 20u);
  EXPECT_EQ(model.window_frames(), 76);
  EXPECT_EQ(model.step_frames(), 8);
  size_t parameters = 0;
  for (const EmbeddingLayer& l : model.layers()) parameters += l.weight.size() + l.bias.size();
  EXPECT_EQ(parameters, 328128u + 96u);  // the last convolution's zero biases are stored
}

TEST(SpeechEmbedding, LoaderRefusesAnotherFrontEnd) {
  auto model = SpeechEmbedding::Load(kModel, features::FrontEndConfig{});
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.error().message.find(kModel), std::string::npos) << model.error().message;
  features::FrontEndConfig htk = features::EmbeddingFrontEndConfig();
  htk.mel_scale = features::MelScale::kHtk;
  model = SpeechEmbedding::Load(kModel, htk);
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.error().message.find("mel_scale"), std::string::npos) << model.error().message;
}

// The bundled model with value `index` of tensor `name` (int32) set to `value`, the checksum
// made right again, in a scratch file.
std::string PatchedModel(const std::string& name, size_t index, int32_t value) {
  std::ifstream in(kModel, std::ios::binary);
  std::vector<uint8_t> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  constexpr size_t kTable = 72, kEntry = 56;
  uint32_t count = 0, offset = 0;
  std::memcpy(&count, &b[kTable - 4], 4);
  for (uint32_t i = 0; i < count; ++i) {
    const uint8_t* e = &b[kTable + i * kEntry];
    if (std::string(reinterpret_cast<const char*>(e)) == name) std::memcpy(&offset, e + 48, 4);
  }
  EXPECT_NE(offset, 0u) << name;
  std::memcpy(&b[offset + 4 * index], &value, 4);
  const uint32_t crc = models::Crc32({b.data(), b.size() - 4});
  std::memcpy(&b[b.size() - 4], &crc, 4);
  const std::string path = testing_util::TestTempPath(name + ".eshm");
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  return path;
}

TEST(SpeechEmbedding, LoaderRefusesInconsistentLayers) {
  const struct {
    std::string tensor;
    size_t index;
    int32_t value;
    std::string says;
  } cases[] = {
      {"l3.geometry", 2, 7, "l3.geometry: reads 7 channels, the layer before gives 24"},
      {"l5.geometry", 0, 0, "l5.geometry: kernel out of range"},
      {"l7.geometry", 4, 3, "max-pool must be 1 or 2"},
      {"l2.activation", 1, 5, "l2.activation out of range"},
      {"l9.shift", 3, 70, "layer 9's bias, mult or shift out of range at channel 3"},
      {"input", 1, 77, "window and step differ"},
  };
  for (const auto& c : cases) {
    auto model = SpeechEmbedding::Load(PatchedModel(c.tensor, c.index, c.value),
                                       features::EmbeddingFrontEndConfig());
    ASSERT_FALSE(model.ok()) << c.tensor;
    EXPECT_NE(model.error().message.find(c.says), std::string::npos) << model.error().message;
  }
}

TEST(SpeechEmbedding, LoaderRefusesOtherModels) {
  auto model =
      SpeechEmbedding::Load(kSource + "/models/vad/vad.eshm", features::EmbeddingFrontEndConfig());
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.error().message.find("vad-mlp"), std::string::npos) << model.error().message;
}

}  // namespace
}  // namespace earshot::embedding
