// Helpers of the speech-to-text tests: a whole recording decoded by one session, and the default
// model loaded with [stt] options set.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "config/config.h"
#include "models/stt/stt.h"
#include "models/stt_factory/load_model.h"
#include "options/stage_options.h"

namespace earshot::stt::test_util {

inline SttResult Decode(const SttModel& model, const std::vector<int16_t>& x,
                        std::string* partial = nullptr) {
  auto session = model.NewSession();
  EXPECT_TRUE(session->Begin().ok());
  for (size_t i = 0; i + 160 <= x.size(); i += 160) {
    EXPECT_TRUE(session->Feed(std::span<const int16_t>(x).subspan(i, 160)).ok());
    if (partial != nullptr && i == x.size() / 2 / 160 * 160) *partial = session->Partial();
  }
  Result<SttResult> r = session->End();
  EXPECT_TRUE(r.ok());
  return r.ok() ? *r : SttResult{};
}

inline const std::string kData = EARSHOT_DATA_DIR;
inline const std::string kSource = EARSHOT_SOURCE_DIR;

// The default [stt] configuration with options set (each option itself must be valid).
// What a test changes of the SttConfig beyond the options: its fusion's weights, which are no
// options (stt.h).
using Tune = std::function<void(SttConfig&)>;

inline Result<SttConfig> ConfigWith(const std::vector<std::pair<std::string, std::string>>& options,
                                    const Tune& tune = {}) {
  config::Config cfg = config::Config::Defaults();
  for (const auto& [key, value] : options) EXPECT_TRUE(cfg.Set(key, value).ok()) << key;
  Result<SttConfig> config = earshot::options::BindStt(cfg);
  if (config.ok() && tune) tune(*config);
  return config;
}

// The default model with [stt] options set, and `tune`'s changes.
inline Result<std::shared_ptr<const SttModel>> LoadWithAll(
    const std::vector<std::pair<std::string, std::string>>& options, const Tune& tune = {}) {
  auto config = ConfigWith(options, tune);
  if (!config.ok()) return config.error();
  return stt_factory::LoadModel(*config);
}

inline Result<std::shared_ptr<const SttModel>> LoadWith(const std::string& key,
                                                        const std::string& value) {
  return LoadWithAll({{key, value}});
}

}  // namespace earshot::stt::test_util
