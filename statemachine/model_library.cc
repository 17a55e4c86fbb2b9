#include "statemachine/model_library.h"

#include "config/paths.h"

namespace earshot::statemachine {

Result<PipelineModels> ModelLibrary::For(const ProfileModels& sizes) {
  if (!vad_) {
    auto vad = vad::VadModel::Load(config::ModelPath(config_, "vad.model", "vad/vad.eshm"), front_end_);
    if (!vad.ok()) return vad.error();
    vad_ = std::move(vad).value();
  }
  PipelineModels models;
  models.vad = vad_;
  if (stages_.kws) {
    auto kws = Keyword(sizes.kws);
    if (!kws.ok()) return kws.error();
    models.kws = std::move(kws).value();
  }
  if (stages_.kws && stages_.stt && sizes.stt != SttSize::kOff) {
    auto stt = Speech(sizes.stt);
    if (!stt.ok()) return stt.error();
    models.stt = std::move(stt).value();
  }
  return models;
}

Result<std::shared_ptr<const kws::KwsModel>> ModelLibrary::Keyword(KwsSize size) {
  std::shared_ptr<const kws::KwsModel>& slot = kws_[static_cast<size_t>(size)];
  if (slot) return slot;
  const std::string path = size == KwsSize::kLarge
      ? config::ModelPath(config_, "kws.model", "kws/computer.eshm")
      : config::ModelPath(config_, "governor.small_kws_model", "kws/computer_small.eshm");
  auto model = kws::KwsModel::Load(path, front_end_);
  if (!model.ok()) return model.error();
  slot = std::move(model).value();
  return slot;
}

Result<std::shared_ptr<const stt::SttModel>> ModelLibrary::Speech(SttSize size) {
  const size_t index = size == SttSize::kLarge ? 0 : 1;
  if (stt_[index]) return stt_[index];
  Result<stt::SttConfig> stt_config = stt::SttConfig::FromConfig(config_);
  if (!stt_config.ok()) return stt_config.error();
  stt_config->profile = std::string(SttSizeName(size));
  auto model = stt::LoadModel(*stt_config);
  if (!model.ok()) return model.error();
  stt_[index] = std::move(model).value();
  return stt_[index];
}

}  // namespace earshot::statemachine
