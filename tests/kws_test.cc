// The keyword spotter: bit-exact against the training scripts' integer reference, model-file
// checks, and the detection's threshold and refractory period.
#include "models/kws/kws.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

#include "features/front_end.h"
#include "features/noise_suppression.h"
#include "models/context_stack.h"
#include "models/float_mlp.h"
#include "tests/from_env.h"
#include "tests/model_writer.h"

namespace earshot::kws {
namespace {

using testing_util::FromEnv;

const std::string kSource = EARSHOT_SOURCE_DIR;
const std::string kModel = FromEnv("EARSHOT_KWS_MODEL", kSource + "/models/kws/computer.eshm");

struct ModelAndVectors {
  std::string model, vectors;
};
// The bundled models and their vectors (tools/train/make_kws_vectors.py), or the pair the training
// smoke test names.
std::vector<ModelAndVectors> Bundled() {
  if (std::getenv("EARSHOT_KWS_MODEL") != nullptr) {
    return {{kModel, FromEnv("EARSHOT_KWS_VECTORS", "")}};
  }
  return {
      {kSource + "/models/kws/computer.eshm", kSource + "/tests/data/kws_vectors.txt"},
      {kSource + "/models/kws/computer_small.eshm", kSource + "/tests/data/kws_small_vectors.txt"}};
}

std::shared_ptr<const KwsModel> LoadModel(const std::string& path = kModel) {
  auto model = KwsModel::Load(path, features::FrontEndConfig{});
  EXPECT_TRUE(model.ok()) << model.error().message;
  return model.ok() ? *model : nullptr;
}

struct Hop {
  std::vector<int16_t> logmel;
  std::vector<int> inputs;
  int score_q15 = -1;
};

std::vector<Hop> ReadVectors(const std::string& path) {
  std::ifstream in(path);
  std::vector<Hop> hops;
  for (std::string text; std::getline(in, text);) {
    if (text.empty() || text[0] == '#') continue;
    std::istringstream s(text);
    Hop hop;
    int part = 0;
    for (std::string token; s >> token;) {
      if (token == "|") {
        ++part;
      } else if (part == 0) {
        hop.logmel.push_back(static_cast<int16_t>(std::stoi(token)));
      } else if (part == 1) {
        hop.inputs.push_back(std::stoi(token));
      } else {
        hop.score_q15 = std::stoi(token);
      }
    }
    hops.push_back(std::move(hop));
  }
  return hops;
}

TEST(Kws, BitExactWithTheTrainingReference) {
  for (const ModelAndVectors& mv : Bundled()) {
    SCOPED_TRACE(mv.model);
    auto model = LoadModel(mv.model);
    ASSERT_NE(model, nullptr);
    KwsSession session(model, KwsConfig{});
    const std::vector<Hop> hops = ReadVectors(mv.vectors);
    ASSERT_GT(hops.size(), 300u) << mv.vectors;
    for (size_t h = 0; h < hops.size(); ++h) {
      session.Process(hops[h].logmel);
      const auto got = session.last_inputs();
      ASSERT_EQ(std::vector<int>(got.begin(), got.end()), hops[h].inputs) << "hop " << h;
      ASSERT_EQ(session.last_network_score(), hops[h].score_q15) << "hop " << h;
    }
  }
}

// Posterior smoothing: each hop's score is the rounded mean of the network's scores over the last
// smooth_frames hops (the hops before the first count as 0), and the network's own scores do not
// change with it.
TEST(Kws, SmoothedScoreIsTheMeanOfTheLastNetworkScores) {
  const ModelAndVectors mv = Bundled().front();
  auto model = LoadModel(mv.model);
  ASSERT_NE(model, nullptr);
  KwsConfig smoothed_config;
  smoothed_config.smooth_frames = 5;
  KwsSession raw(model, KwsConfig{}), smoothed(model, smoothed_config);
  const std::vector<Hop> hops = ReadVectors(mv.vectors);
  ASSERT_GT(hops.size(), 300u) << mv.vectors;
  std::vector<int> network;
  int moved = 0;
  for (size_t h = 0; h < hops.size(); ++h) {
    const uint16_t raw_score = raw.Process(hops[h].logmel);
    const uint16_t score = smoothed.Process(hops[h].logmel);
    ASSERT_EQ(raw_score, raw.last_network_score());
    ASSERT_EQ(smoothed.last_network_score(), raw_score) << "hop " << h;
    network.push_back(raw_score);
    int sum = 0;
    for (size_t k = network.size() - std::min<size_t>(5, network.size()); k < network.size(); ++k) {
      sum += network[k];
    }
    ASSERT_EQ(score, (sum + 2) / 5) << "hop " << h;
    moved += score != raw_score;
  }
  EXPECT_GT(moved, 0) << "the vectors' scores never change: the test would not see smoothing";
}

// The int8 engine against the float network (Eigen) on the inputs of real audio: every logit
// within the rounding's worst-case bound, and their root mean square error within what
// independent roundings would give (less: a ReLU that is off stops an error).
TEST(Kws, Int8AgreesWithTheFloatReference) {
  for (const ModelAndVectors& mv : Bundled()) {
    SCOPED_TRACE(mv.model);
    auto model = LoadModel(mv.model);
    ASSERT_NE(model, nullptr);
    const models::FloatMlp reference(model->mlp());
    const double bound = reference.ErrorBound();
    KwsSession session(model, KwsConfig{});
    models::ContextStack stack(model->pooled_bands(), std::vector<int32_t>(model->context().begin(),
                                                                           model->context().end()));
    models::Int8Mlp::Scratch scratch = model->mlp().MakeScratch();
    double sum_square = 0, max_error = 0, lowest = 0, highest = 0;
    const std::vector<Hop> hops = ReadVectors(mv.vectors);
    ASSERT_GT(hops.size(), 300u);
    for (const Hop& hop : hops) {
      session.Process(hop.logmel);
      std::copy(session.last_inputs().begin(), session.last_inputs().end(), stack.Next().begin());
      stack.Commit();
      const auto input = stack.Stack(stack.committed() - 1);
      const double want = std::clamp(reference.Logit(input), -1024.0, 1023.0);
      const double error = std::abs(model->mlp().RunLogit(input, scratch) - want);
      ASSERT_LE(error, bound) << "logit " << want;
      sum_square += error * error;
      max_error = std::max(max_error, error);
      lowest = std::min(lowest, want);
      highest = std::max(highest, want);
    }
    const double rms = std::sqrt(sum_square / static_cast<double>(hops.size()));
    EXPECT_LT(rms, reference.ErrorRms())
        << "rounding alone would give " << reference.ErrorRms();
    // The detection threshold lies between the background's logits and the keyword's: the error
    // must be small against that span (not against the largest |logit|, which depends on how
    // much of the recording is background).
    EXPECT_GT(highest - lowest, 16 * max_error) << "the logits must span far more than their error";
    std::cout << "  " << mv.model << ": logit error rms " << rms << " (rounding model "
              << reference.ErrorRms() << "), max " << max_error << ", bound " << bound
              << " quanta; logits " << lowest << " .. " << highest << "\n";
  }
}

TEST(Kws, RejectsOtherModelsAndFeatures) {
  auto vad = KwsModel::Load(std::string(EARSHOT_SOURCE_DIR) + "/models/vad/vad.eshm",
                            features::FrontEndConfig{});
  ASSERT_FALSE(vad.ok());
  EXPECT_NE(vad.error().message.find("is a 'vad-mlp' model, expected 'kws-mlp'"),
            std::string::npos);
  features::FrontEndConfig fe;
  fe.mel_high_hz = 8000;
  auto wrong = KwsModel::Load(kModel, fe);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("features.mel_high_hz = 7600"), std::string::npos);
}

// A tiny keyword model: two frames (offsets -4 and 0) of 20 pooled bands into one dense layer,
// a ramp for a sigmoid; `extra`: more tensors (kws_noise_suppression).
std::string TinyModel(const std::vector<testing_util::Tensor>& extra, const std::string& file) {
  std::vector<int8_t> weight(40);
  for (size_t i = 0; i < weight.size(); ++i) weight[i] = static_cast<int8_t>(3 * (i % 7) - 9);
  std::vector<uint16_t> ramp(2 * models::Int8Mlp::kLogitHalfRange);
  for (size_t k = 0; k < ramp.size(); ++k) ramp[k] = static_cast<uint16_t>(k);
  std::vector<testing_util::Tensor> tensors = {
      testing_util::Int32("context", {-4, 0}),
      testing_util::Int32("kws_transform", {6, 7, -24, 63}),
      testing_util::Int8("l0.weight", {1, 40}, weight),
      testing_util::Int32("l0.bias", {5}),
      testing_util::Int32("l0.mult", {1 << 30}),
      testing_util::Int32("l0.shift", {31}),
      testing_util::Make("sigmoid", models::TensorType::kUint16,
                         {static_cast<uint32_t>(ramp.size())}, ramp)};
  tensors.insert(tensors.end(), extra.begin(), extra.end());
  return testing_util::WriteModel("kws-mlp", tensors, file);
}

// A model trained on suppressed noise reads the log-mel after NoiseSuppression: its session fed the
// front end's log-mel computes what a plain model's computes from the suppressed log-mel, from
// afresh after Reset(); and that is not what the plain model computes from the log-mel as it is.
TEST(Kws, ReadsTheLogMelAfterNoiseSuppressionWhenTheModelSaysSo) {
  auto plain = LoadModel(TinyModel({}, "plain.eshm"));
  auto suppressed =
      LoadModel(TinyModel({testing_util::Int32("kws_noise_suppression", {1})}, "ns.eshm"));
  ASSERT_NE(plain, nullptr);
  ASSERT_NE(suppressed, nullptr);
  EXPECT_FALSE(plain->noise_suppression());
  EXPECT_TRUE(suppressed->noise_suppression());
  const std::vector<Hop> hops = ReadVectors(Bundled().front().vectors);
  ASSERT_GT(hops.size(), 300u);
  KwsSession session(suppressed, KwsConfig{});
  for (int pass = 0; pass < 2; ++pass) {
    SCOPED_TRACE(pass == 0 ? "first pass" : "after Reset()");
    session.Reset();
    KwsSession reference(plain, KwsConfig{});
    KwsSession unsuppressed(plain, KwsConfig{});
    features::NoiseSuppression noise(40, features::FrontEndConfig{}.log_floor_db * 256);
    int differing = 0;
    for (size_t h = 0; h < hops.size(); ++h) {
      std::vector<int16_t> logmel = hops[h].logmel;
      session.Process(logmel);
      unsuppressed.Process(logmel);
      noise.Process(logmel);
      reference.Process(logmel);
      const auto got = session.last_inputs();
      const auto want = reference.last_inputs();
      ASSERT_TRUE(std::equal(got.begin(), got.end(), want.begin(), want.end())) << "hop " << h;
      ASSERT_EQ(session.last_network_score(), reference.last_network_score()) << "hop " << h;
      const auto raw = unsuppressed.last_inputs();
      differing += std::equal(got.begin(), got.end(), raw.begin(), raw.end()) ? 0 : 1;
    }
    EXPECT_GT(differing, static_cast<int>(hops.size()) / 2);
  }
}

TEST(Kws, RejectsAMalformedNoiseSuppressionFlag) {
  for (const auto& [tensor, cause] :
       {std::pair{testing_util::Int32("kws_noise_suppression", {2}), "must be 0 or 1"},
        std::pair{testing_util::Int32("kws_noise_suppression", {1, 1}), "kws_noise_suppression"}}) {
    const std::string path = TinyModel({tensor}, "bad.eshm");
    auto model = KwsModel::Load(path, features::FrontEndConfig{});
    ASSERT_FALSE(model.ok());
    EXPECT_NE(model.error().message.find(path), std::string::npos) << model.error().message;
    EXPECT_NE(model.error().message.find(cause), std::string::npos) << model.error().message;
  }
}

}  // namespace
}  // namespace earshot::kws
