// libearshot's C API (api/include/earshot/earshot.h): the cascade's events on the sample, however
// the samples are split; every error a return code with a message naming its cause.
// packaging/library_test.sh runs the installed library from a C program.
#include "earshot/earshot.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "tests/read_samples.h"
#include "tests/temp_path.h"

namespace {

const std::string kSample = std::string(EARSHOT_SOURCE_DIR) + "/tools/samples/computer_request.flac";

earshot_pipeline* Create(const char* config_file, const char* const* settings, int expect,
                         std::string* message = nullptr) {
  char text[512] = "unset";
  earshot_pipeline* pipeline = reinterpret_cast<earshot_pipeline*>(1);
  EXPECT_EQ(earshot_pipeline_create(config_file, settings, &pipeline, text, sizeof text), expect)
      << text;
  if (message != nullptr) *message = text;
  if (expect != EARSHOT_OK) {
    EXPECT_EQ(pipeline, nullptr);
  }
  return pipeline;
}

std::vector<std::string> Drain(earshot_pipeline* pipeline) {
  std::vector<std::string> events;
  while (const char* event = earshot_pipeline_next_event(pipeline)) events.emplace_back(event);
  return events;
}

// The events of the sample pushed `chunk` samples at a time.
std::vector<std::string> RunSample(size_t chunk) {
  const std::vector<int16_t> samples = earshot::testing_util::ReadSamples(kSample);
  earshot_pipeline* pipeline = Create(nullptr, nullptr, EARSHOT_OK);
  std::vector<std::string> events;
  for (size_t i = 0; i < samples.size(); i += chunk) {
    const size_t n = std::min(chunk, samples.size() - i);
    EXPECT_EQ(earshot_pipeline_push(pipeline, samples.data() + i, n), EARSHOT_OK);
    for (std::string& e : Drain(pipeline)) events.push_back(std::move(e));
  }
  EXPECT_EQ(earshot_pipeline_finish(pipeline), EARSHOT_OK);
  for (std::string& e : Drain(pipeline)) events.push_back(std::move(e));
  earshot_pipeline_destroy(pipeline);
  return events;
}

bool Has(const std::vector<std::string>& events, const std::string& part) {
  for (const std::string& e : events) {
    if (e.find(part) != std::string::npos) return true;
  }
  return false;
}

TEST(CApi, TheSampleWakesAndIsTranscribed) {
  const std::vector<std::string> events = RunSample(1600);
  EXPECT_TRUE(Has(events, R"("event": "wake", "t": 1.05, "keyword": "computer")"));
  EXPECT_TRUE(Has(events, R"("text": "she's going to put the ironing things away", "final": true)"));
  EXPECT_EQ(events.front(), R"({"event": "speech_start", "t": 0.25})");  // as earshot run
}

TEST(CApi, ChunkSizesDoNotChangeTheEvents) {
  EXPECT_EQ(RunSample(7), RunSample(16000));
}

TEST(CApi, Version) { EXPECT_STREQ(earshot_version(), EARSHOT_VERSION); }

TEST(CApi, ConfigErrorsNameTheFileOrKey) {
  std::string message;
  Create("/nonexistent/earshot.toml", nullptr, EARSHOT_ERROR_CONFIG, &message);
  EXPECT_NE(message.find("/nonexistent/earshot.toml"), std::string::npos) << message;
  const char* const bad_key[] = {"vad.nope=1", nullptr};
  Create(nullptr, bad_key, EARSHOT_ERROR_CONFIG, &message);
  EXPECT_NE(message.find("vad.nope"), std::string::npos) << message;
  const char* const out_of_range[] = {"vad.threshold=7", nullptr};
  Create(nullptr, out_of_range, EARSHOT_ERROR_CONFIG, &message);
  EXPECT_NE(message.find("vad.threshold"), std::string::npos) << message;
}

TEST(CApi, AModelThatIsNotOneIsAnError) {
  const std::string path = earshot::testing_util::TestTempPath("not_a_model.eshm");
  std::ofstream(path) << "not a model";
  const std::string setting = "vad.model=" + path;
  const char* const settings[] = {setting.c_str(), nullptr};
  std::string message;
  Create(nullptr, settings, EARSHOT_ERROR_MODEL, &message);
  EXPECT_NE(message.find(path), std::string::npos) << message;
}

TEST(CApi, MisuseIsAnErrorNotACrash) {
  char message[64];
  EXPECT_EQ(earshot_pipeline_create(nullptr, nullptr, nullptr, message, sizeof message),
            EARSHOT_ERROR_ARGUMENT);
  EXPECT_EQ(earshot_pipeline_push(nullptr, nullptr, 0), EARSHOT_ERROR_ARGUMENT);
  EXPECT_EQ(earshot_pipeline_finish(nullptr), EARSHOT_ERROR_ARGUMENT);
  EXPECT_EQ(earshot_pipeline_next_event(nullptr), nullptr);
  earshot_pipeline_destroy(nullptr);

  earshot_pipeline* pipeline = Create(nullptr, nullptr, EARSHOT_OK);
  EXPECT_EQ(earshot_pipeline_push(pipeline, nullptr, 5), EARSHOT_ERROR_ARGUMENT);
  EXPECT_STREQ(earshot_pipeline_error(pipeline), "earshot_pipeline_push: samples is NULL");
  EXPECT_EQ(earshot_pipeline_finish(pipeline), EARSHOT_OK);
  const int16_t silence[160] = {};
  EXPECT_EQ(earshot_pipeline_push(pipeline, silence, 160), EARSHOT_ERROR_ARGUMENT);
  EXPECT_STREQ(earshot_pipeline_error(pipeline), "earshot_pipeline_push: after finish");
  EXPECT_EQ(earshot_pipeline_finish(pipeline), EARSHOT_ERROR_ARGUMENT);
  earshot_pipeline_destroy(pipeline);
}

}  // namespace
