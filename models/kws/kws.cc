#include "models/kws/kws.h"

#include <algorithm>

#include "models/model_file.h"

namespace earshot::kws {
namespace {

Result<bool> ReadNoiseSuppression(const models::ModelFile& file) {
  if (!file.Has("kws_noise_suppression")) return false;
  Result<std::vector<int32_t>> v = file.Read<int32_t>("kws_noise_suppression", {1});
  if (!v.ok()) return v.error();
  if ((*v)[0] != 0 && (*v)[0] != 1) return file.Fail("kws_noise_suppression must be 0 or 1");
  return (*v)[0] == 1;
}

}  // namespace

Result<std::shared_ptr<const KwsModel>> KwsModel::Load(const std::string& path,
                                                       const features::FrontEndConfig& front_end) {
  Result<models::ModelFile> file =
      models::ModelFile::Load(path, "kws-mlp", models::FeatureKind::kLogMel, front_end);
  if (!file.ok()) return file.error();
  if (file->features().mel_bands % 2 != 0) {
    return file->Fail("the keyword spotter pools bands in pairs: it needs an even number");
  }
  Result<std::vector<uint32_t>> dims = file->Dims("context");
  if (!dims.ok()) return dims.error();
  Result<std::vector<int32_t>> context = file->Read<int32_t>("context", *dims);
  if (!context.ok()) return context.error();
  if (context->empty() || context->size() > 256 ||
      !std::is_sorted(context->begin(), context->end()) || context->front() < -400 ||
      context->back() != 0) {
    return file->Fail("context offsets must ascend within [-400, 0] and end at 0");
  }
  Result<std::vector<int32_t>> t = file->Read<int32_t>("kws_transform", {4});
  if (!t.ok()) return t.error();
  const KwsTransform transform{(*t)[0], (*t)[1], (*t)[2], (*t)[3]};
  if (transform.mean_shift < 0 || transform.mean_shift > 15 || transform.step_shift < 0 ||
      transform.step_shift > 15 || transform.min < -128 || transform.max > 127 ||
      transform.min > transform.max) {
    return file->Fail("kws_transform constants out of range");
  }
  Result<bool> noise_suppression = ReadNoiseSuppression(*file);
  if (!noise_suppression.ok()) return noise_suppression.error();
  const int pooled = file->features().mel_bands / 2;
  Result<models::Int8Mlp> mlp =
      models::Int8Mlp::Load(*file, pooled * static_cast<int>(context->size()));
  if (!mlp.ok()) return mlp.error();
  return std::shared_ptr<const KwsModel>(
      new KwsModel(std::move(mlp).value(), std::move(context).value(), transform, pooled,
                   *noise_suppression, static_cast<int16_t>(front_end.log_floor_db * 256)));
}

Result<KwsConfig> KwsConfig::FromConfig(const config::Config& config) {
  KwsConfig c;
  c.keyword = config.String("kws.keyword");
  c.threshold_q15 = static_cast<int32_t>(config.Float("kws.threshold") * 32767.0 + 0.5);
  c.refractory_frames = static_cast<int>(config.Int("kws.refractory_ms") / 10);
  c.max_hold_frames = static_cast<int>(config.Int("kws.max_hold_ms") / 10);
  c.gap_frames = static_cast<int>(config.Int("kws.gap_ms") / 10);
  c.smooth_frames = std::max(1, static_cast<int>(config.Int("kws.smooth_ms") / 10));
  return c;
}

KwsSession::KwsSession(std::shared_ptr<const KwsModel> model, const KwsConfig& config)
    : model_(std::move(model)),
      scratch_(model_->mlp().MakeScratch()),
      mean_q8_(static_cast<size_t>(model_->pooled_bands())),
      stack_(model_->pooled_bands(),
             std::vector<int32_t>(model_->context().begin(), model_->context().end())),
      stream_(ConvStream::For(model_->mlp(), model_->context(), model_->pooled_bands())),
      recent_q15_(static_cast<size_t>(std::max(1, config.smooth_frames))) {
  if (model_->noise_suppression()) {
    noise_.emplace(2 * model_->pooled_bands(), model_->log_floor_db_q8());
    denoised_q8_.resize(static_cast<size_t>(2 * model_->pooled_bands()));
  }
}

void KwsSession::Reset() {
  stack_.Reset();
  if (noise_) noise_->Reset();
  std::fill(recent_q15_.begin(), recent_q15_.end(), 0);
  recent_sum_q15_ = 0;
  primed_ = false;
}

uint16_t KwsSession::Process(std::span<const int16_t> logmel_db_q8) {
  if (noise_) {
    std::copy(logmel_db_q8.begin(), logmel_db_q8.end(), denoised_q8_.begin());
    noise_->Process(denoised_q8_);
    logmel_db_q8 = denoised_q8_;
  }
  const KwsTransform& p = model_->transform();
  std::span<int8_t> inputs = stack_.Next();
  for (size_t b = 0; b < mean_q8_.size(); ++b) {
    const int32_t pooled = (int32_t{logmel_db_q8[2 * b]} + logmel_db_q8[2 * b + 1]) >> 1;
    if (!primed_) mean_q8_[b] = pooled;
    mean_q8_[b] += (pooled - mean_q8_[b]) >> p.mean_shift;
    inputs[b] =
        static_cast<int8_t>(std::clamp((pooled - mean_q8_[b]) >> p.step_shift, p.min, p.max));
  }
  primed_ = true;
  stack_.Commit();
  const int64_t hop = stack_.committed() - 1;
  const uint16_t network_q15 = stream_ ? stream_->Run(model_->mlp(), hop, stack_, scratch_)
                                       : model_->mlp().Run(stack_.Stack(hop), scratch_);
  // The ring holds the scores of the last n hops (zeros before the first): n * 32767 < 2^31.
  const auto n = static_cast<int32_t>(recent_q15_.size());
  uint16_t& slot = recent_q15_[static_cast<size_t>(hop % n)];
  recent_sum_q15_ += int32_t{network_q15} - slot;
  slot = network_q15;
  return static_cast<uint16_t>((recent_sum_q15_ + n / 2) / n);
}

uint16_t KwsSession::last_network_score() const {
  const auto n = static_cast<int64_t>(recent_q15_.size());
  return recent_q15_[static_cast<size_t>((stack_.committed() + n - 1) % n)];
}

}  // namespace earshot::kws
