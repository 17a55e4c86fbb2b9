// The `info` answer (Wyoming description, "Info"): programs by service, each with a name, an
// attribution, `installed`, a description, a version and its models.
#include <cstdio>
#include <fstream>

#include "wyoming/service.h"

namespace earshot::wyoming {
namespace {

using nlohmann::json;

const json kAttribution = {{"name", "earshot"}, {"url", ""}};

// A model file's version: the CRC-32 its last four bytes hold (models/model_file.h), which
// changes with any byte of the model.
std::string ModelVersion(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char crc[4] = {};
  if (!in.seekg(-4, std::ios::end) || !in.read(reinterpret_cast<char*>(crc), 4)) return "unknown";
  char text[16];
  std::snprintf(text, sizeof(text), "crc32-%02x%02x%02x%02x", crc[3], crc[2], crc[1], crc[0]);
  return text;
}

json Artifact(const std::string& name, const std::string& description, const std::string& version) {
  return {{"name", name},       {"attribution", kAttribution},
          {"installed", true},  {"description", description},
          {"version", version}, {"languages", {"en"}}};
}

json Program(const std::string& description, json models) {
  json program = Artifact("earshot", description, EARSHOT_VERSION);
  program.erase("languages");
  program["models"] = std::move(models);
  return program;
}

}  // namespace

json BuildInfo(const statemachine::PipelineModels& models,
               const std::map<std::string, std::string, std::less<>>& asr_models) {
  json wake = json::array();
  if (models.kws != nullptr) {
    for (const kws::Keyword& k : models.kws->keywords()) {
      json model = Artifact(k.name, "keyword model " + k.path, ModelVersion(k.path));
      model["phrase"] = k.model->phrase().empty() ? k.name : k.model->phrase();
      wake.push_back(std::move(model));
    }
  }
  json asr = json::array();
  for (const auto& [name, description] : asr_models) {
    asr.push_back(Artifact(name, description, EARSHOT_VERSION));
  }
  json vad = json::array({Artifact("earshot-vad", "fixed-point VAD", EARSHOT_VERSION)});
  return {{"wake", json::array({Program("earshot wake words (int8 keyword spotter)", wake)})},
          {"asr", json::array({Program("earshot speech-to-text (pocketsphinx)", asr)})},
          {"vad", json::array({Program("earshot voice activity detection", vad)})},
          {"tts", json::array()},
          {"handle", json::array()},
          {"intent", json::array()}};
}

}  // namespace earshot::wyoming
