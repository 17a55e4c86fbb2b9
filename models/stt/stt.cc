#include "models/stt/stt.h"

#include "models/stt/pocketsphinx_backend.h"

namespace earshot::stt {
namespace {

constexpr const char* kDebianModel = "/usr/share/pocketsphinx/model/en-us";

std::string OrDefault(const std::string& value, const std::string& fallback) {
  return value.empty() ? fallback : value;
}

}  // namespace

Result<SttConfig> SttConfig::FromConfig(const config::Config& config) {
  SttConfig c;
  c.acoustic_model =
      OrDefault(config.String("stt.acoustic_model"), std::string(kDebianModel) + "/en-us");
  c.language_model =
      OrDefault(config.String("stt.language_model"), std::string(kDebianModel) + "/en-us.lm.bin");
  c.dictionary =
      OrDefault(config.String("stt.dictionary"), std::string(kDebianModel) + "/cmudict-en-us.dict");
  c.grammar = config.String("stt.grammar");
  c.words = config.String("stt.words");
  c.profile = config.String("stt.profile");
  c.front_end = config.String("stt.front_end");
  if (!c.grammar.empty() && !c.words.empty()) {
    return Error{"stt.grammar and stt.words are exclusive: set one"};
  }
  return c;
}

Result<std::shared_ptr<const SttModel>> LoadModel(const SttConfig& config) {
  auto model = PocketsphinxModel::Load(config);
  if (!model.ok()) return model.error();
  return std::shared_ptr<const SttModel>(std::move(model).value());
}

}  // namespace earshot::stt
