#include "wyoming/service.h"

#include "features/front_end_config.h"
#include "models/commands/command_model.h"
#include "options/stage_options.h"

namespace earshot::wyoming {
namespace {

std::string Joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : "|") + w;
  return out;
}

std::string Describe(const stt::SttConfig& c) {
  if (!c.words.empty()) return "command words " + c.words;
  if (!c.grammar.empty()) return "grammar " + c.grammar;
  return "open vocabulary, pocketsphinx " + c.acoustic_model;
}

}  // namespace

Result<std::unique_ptr<Service>> Service::Create(const config::Config& config,
                                                 const ServiceOptions& options) {
  std::unique_ptr<Service> service(new Service(config, options));
  Result<statemachine::PipelineModels> models =
      statemachine::PipelineModels::Load(config, statemachine::StageSet{true, false});
  if (!models.ok()) return models.error();
  service->wake_models_ = std::move(models).value();
  if (Status s = service->LoadDecoders(); !s.ok()) return s.error();
  service->info_ = BuildInfo(service->wake_models_, service->decoder_descriptions_);
  return service;
}

Status Service::LoadDecoders() {
  Result<stt::SttConfig> open = options::BindStt(config_);
  if (!open.ok()) return open.error();
  auto add = [&](std::string_view name, const stt::SttConfig& c) -> Status {
    Result<std::unique_ptr<DecoderPool>> pool = DecoderPool::Create(c, options_.decoders);
    if (!pool.ok()) return pool.error();
    decoders_.emplace(name, std::move(pool).value());
    decoder_descriptions_.emplace(name, Describe(c));
    return OkStatus();
  };
  if (Status s = add(kOpenModel, *open); !s.ok()) return s;
  // The command words: those of the command classifier (stt.command_model), decoded as a one-word
  // grammar with the classifier's second opinion; none when stt.command_model is "none".
  if (open->command_model == "none") return OkStatus();
  auto classifier = commands::CommandModel::Load(open->command_model, open->embedding_model);
  if (!classifier.ok()) return classifier.error();
  stt::SttConfig commands = *open;
  commands.grammar.clear();
  commands.words = Joined((*classifier)->words());
  return add(kCommandsModel, commands);
}

DecoderPool* Service::Decoders(std::string_view name) const {
  auto it = decoders_.find(name.empty() ? kOpenModel : name);
  return it == decoders_.end() ? nullptr : it->second.get();
}

}  // namespace earshot::wyoming
