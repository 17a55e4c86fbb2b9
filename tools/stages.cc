#include "tools/stages.h"

#include <vector>

#include "config/paths.h"
#include "options/stage_options.h"

namespace earshot::tools {

Result<std::unique_ptr<features::FrontEnd>> MakeFrontEnd(features::FrontEndConfig config,
                                                         bool noise_suppression) {
  config.noise_suppression = noise_suppression;
  return features::FrontEnd::Create(config);
}

Status ForEachAudioFrame(audio::FrameSource& source,
                         const std::function<void(const audio::Frame&)>& on_frame) {
  audio::Frame frame;
  for (;;) {
    Result<bool> more = source.Next(frame);
    if (!more.ok()) return more.error();
    if (!*more) return OkStatus();
    on_frame(frame);
  }
}

Status ForEachFrame(audio::FrameSource& source, features::FrontEnd& front_end,
                    const std::function<void(const features::FrontEnd&)>& on_frame,
                    const std::function<void()>& on_end) {
  Status s = ForEachAudioFrame(source, [&](const audio::Frame& frame) {
    front_end.Process(frame);
    on_frame(front_end);
  });
  if (!s.ok()) return s;
  on_end();
  return OkStatus();
}

Result<Playback> Playback::Open(const std::string& path, const config::Config& config) {
  Result<std::unique_ptr<audio::FileSource>> source =
      audio::FileSource::Open(path, options::BindFileSource(config));
  if (!source.ok()) return source.error();
  Result<std::unique_ptr<echo::EchoCanceller>> canceller =
      echo::EchoCanceller::Create(echo::EchoCancellerConfig{});
  if (!canceller.ok()) return canceller.error();
  return Playback{std::move(source).value(), std::move(canceller).value()};
}

Status Playback::Cancel(audio::Frame& frame) {
  if (!ended) {
    Result<bool> more = source->Next(played);
    if (!more.ok()) return more.error();
    ended = !*more;
  }
  if (ended) played = audio::Frame{};
  if (ended) {
    canceller->ProcessWithoutReference();
  } else {
    canceller->Process(played, frame);
  }
  return OkStatus();
}

Result<VadStage> VadStage::Create(const config::Config& config) {
  auto front_end = MakeFrontEnd({});
  if (!front_end.ok()) return front_end.error();
  auto model = vad::VadModel::Load(config::ModelPath(config, "vad.model"),
                                   (*front_end)->config());
  if (!model.ok()) return model.error();
  Result<vad::VadConfig> vad_config = options::BindVad(config);
  if (!vad_config.ok()) return vad_config.error();
  VadStage stage;
  stage.front_end = std::move(front_end).value();
  stage.session = std::make_unique<vad::VadSession>(std::move(model).value(), *vad_config);
  return stage;
}

Status VadStage::Run(audio::FrameSource& source,
                     const std::function<void(const vad::VadFrame&)>& on_frame) {
  std::vector<vad::VadFrame> decided;
  decided.reserve(64);
  auto emit = [&] {
    for (const vad::VadFrame& f : decided) on_frame(f);
    decided.clear();
  };
  return ForEachFrame(
      source, *front_end,
      [&](const features::FrontEnd& fe) {
        session->Process(fe.logmel_db_q8(), decided);
        emit();
      },
      [&] {
        session->Flush(decided);
        emit();
      });
}

}  // namespace earshot::tools
