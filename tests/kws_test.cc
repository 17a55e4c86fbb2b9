// The keyword spotter: bit-exact against the training scripts' integer reference, model-file
// checks, and the detection's threshold and refractory period.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "features/front_end.h"
#include "models/kws/kws.h"

namespace earshot::kws {
namespace {

std::string FromEnv(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != 0 ? v : fallback;
}
const std::string kModel =
    FromEnv("EARSHOT_KWS_MODEL", std::string(EARSHOT_SOURCE_DIR) + "/models/kws/computer.eshm");
const std::string kVectors =
    FromEnv("EARSHOT_KWS_VECTORS", std::string(EARSHOT_SOURCE_DIR) + "/tests/data/kws_vectors.txt");

std::shared_ptr<const KwsModel> LoadModel() {
  auto model = KwsModel::Load(kModel, features::FrontEndConfig{});
  EXPECT_TRUE(model.ok()) << model.error().message;
  return model.ok() ? *model : nullptr;
}

TEST(Kws, BitExactWithTheTrainingReference) {
  auto model = LoadModel();
  ASSERT_NE(model, nullptr);
  KwsSession session(model);
  std::ifstream in(kVectors);
  std::string text;
  int hops = 0;
  while (std::getline(in, text)) {
    if (text.empty() || text[0] == '#') continue;
    std::istringstream s(text);
    std::vector<int16_t> logmel;
    std::vector<int> inputs;
    int expected = -1, part = 0;
    for (std::string token; s >> token;) {
      if (token == "|") {
        ++part;
      } else if (part == 0) {
        logmel.push_back(static_cast<int16_t>(std::stoi(token)));
      } else if (part == 1) {
        inputs.push_back(std::stoi(token));
      } else {
        expected = std::stoi(token);
      }
    }
    const uint16_t score = session.Process(logmel);
    const auto got = session.last_inputs();
    ASSERT_EQ(std::vector<int>(got.begin(), got.end()), inputs) << "hop " << hops;
    ASSERT_EQ(score, expected) << "hop " << hops;
    ++hops;
  }
  EXPECT_GT(hops, 300);
}

TEST(Kws, RejectsOtherModelsAndFeatures) {
  auto vad = KwsModel::Load(std::string(EARSHOT_SOURCE_DIR) + "/models/vad/vad.eshm",
                            features::FrontEndConfig{});
  ASSERT_FALSE(vad.ok());
  EXPECT_NE(vad.error().message.find("is a 'vad-mlp' model, expected 'kws-mlp'"), std::string::npos);
  features::FrontEndConfig fe;
  fe.mel_high_hz = 8000;
  auto wrong = KwsModel::Load(kModel, fe);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("features.mel_high_hz = 7600"), std::string::npos);
}

}  // namespace
}  // namespace earshot::kws
