#include "tools/vad_stage.h"

#include <vector>

#include "tools/cli.h"

namespace earshot::cli {

Result<VadStage> VadStage::Create(const config::Config& config) {
  Result<features::FrontEndConfig> fe_config = features::FrontEndConfig::FromConfig(config);
  if (!fe_config.ok()) return fe_config.error();
  auto front_end = features::FrontEnd::Create(*fe_config);
  if (!front_end.ok()) return front_end.error();
  std::string path = config.String("vad.model");
  if (path.empty()) path = BundledModelPath("vad/vad.eshm");
  auto model = vad::VadModel::Load(path, *fe_config);
  if (!model.ok()) return model.error();
  Result<vad::VadConfig> vad_config = vad::VadConfig::FromConfig(config);
  if (!vad_config.ok()) return vad_config.error();
  VadStage stage;
  stage.front_end = std::move(front_end).value();
  stage.session = std::make_unique<vad::VadSession>(std::move(model).value(), *vad_config);
  return stage;
}

Status VadStage::Run(audio::FrameSource& source,
                     const std::function<void(const vad::VadFrame&)>& on_frame) {
  audio::Frame frame;
  std::vector<vad::VadFrame> decided;
  decided.reserve(64);
  for (;;) {
    Result<bool> more = source.Next(frame);
    if (!more.ok()) return more.error();
    decided.clear();
    if (!*more) {
      session->Flush(decided);
      for (const vad::VadFrame& f : decided) on_frame(f);
      return OkStatus();
    }
    front_end->Process(frame);
    session->Process(front_end->logmel_db_q8(), decided);
    for (const vad::VadFrame& f : decided) on_frame(f);
  }
}

audio::FileSourceOptions SourceOptions(const config::Config& config) {
  audio::FileSourceOptions options;
  options.read_chunk_ms = static_cast<int>(config.Int("audio.read_chunk_ms"));
  options.resampler_quality = config.String("audio.resampler_quality");
  return options;
}

}  // namespace earshot::cli
