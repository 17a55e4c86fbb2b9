// Service: what every connection of earshot-wyoming shares, loaded once at start: the
// configuration, the VAD and keyword models (immutable, shared by every stream's pipeline), the
// speech-to-text decoder pools by Wyoming model name, and the `info` answer to `describe`.
// Thread-safe: connections run on threads of their own.
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "base/result.h"
#include "config/config.h"
#include "statemachine/pipeline.h"
#include "wyoming/decoder_pool.h"

namespace earshot::wyoming {

struct ServiceOptions {
  int decoders = 2;           // decoders per speech-to-text model (DecoderPool)
  int max_transcribe_s = 30;  // audio kept for one transcribe; the rest is not decoded
};

// The Wyoming names of the speech-to-text models.
inline constexpr std::string_view kOpenModel = "earshot-en";            // the [stt] configuration
inline constexpr std::string_view kCommandsModel = "earshot-commands";  // the command words

class Service {
 public:
  static Result<std::unique_ptr<Service>> Create(const config::Config& config,
                                                 const ServiceOptions& options);

  const config::Config& config() const { return config_; }
  const ServiceOptions& options() const { return options_; }
  // VAD and keywords; no STT (transcribe requests use the pools).
  const statemachine::PipelineModels& wake_models() const { return wake_models_; }
  // The pool of the model named `name` ("" : kOpenModel), or null if there is none of that name.
  DecoderPool* Decoders(std::string_view name) const;
  const nlohmann::json& info() const { return info_; }

 private:
  Service(const config::Config& config, const ServiceOptions& options)
      : config_(config), options_(options) {}
  Status LoadDecoders();

  config::Config config_;
  ServiceOptions options_;
  statemachine::PipelineModels wake_models_;
  std::map<std::string, std::unique_ptr<DecoderPool>, std::less<>> decoders_;
  std::map<std::string, std::string, std::less<>> decoder_descriptions_;
  nlohmann::json info_;
};

// The `info` event's data: the wake words (name, phrase, model file and version), the
// speech-to-text models with their descriptions, the VAD.
nlohmann::json BuildInfo(const statemachine::PipelineModels& models,
                         const std::map<std::string, std::string, std::less<>>& asr_models);

}  // namespace earshot::wyoming
