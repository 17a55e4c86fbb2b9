#include "models/vad/vad.h"

#include <algorithm>

#if defined(__aarch64__)
#include <arm_neon.h>
#endif

#include "base/q15.h"
#include "models/model_file.h"

namespace earshot::vad {

Result<std::shared_ptr<const VadModel>> VadModel::Load(const std::string& path,
                                                       const features::FrontEndConfig& front_end) {
  Result<models::ModelFile> file =
      models::ModelFile::Load(path, "vad-mlp", models::FeatureKind::kLogMel, front_end);
  if (!file.ok()) return file.error();
  const int bands = file->features().mel_bands;
  Result<std::vector<uint32_t>> context_dims = file->Dims("context");
  if (!context_dims.ok()) return context_dims.error();
  Result<std::vector<int32_t>> context = file->Read<int32_t>("context", *context_dims);
  if (!context.ok()) return context.error();
  if (context->empty() || context->size() > 64 || !std::is_sorted(context->begin(), context->end()) ||
      context->front() < -64 || context->front() > 0 || context->back() < 0 || context->back() > 16) {
    return file->Fail("context offsets must ascend within [-64, 16] and include 0");
  }
  Result<std::vector<int32_t>> t = file->Read<int32_t>("input_transform", {9});
  if (!t.ok()) return t.error();
  const std::vector<int32_t>& v = *t;
  const InputTransform transform{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]};
  if (v[0] < 0 || v[0] > 15 || v[1] < 0 || v[2] < 0 || v[2] > 15 || v[3] <= 0 || v[4] < 0 ||
      v[4] > 15 || (v[3] >> v[4]) > 127 || v[5] <= 0 || v[6] < 0 || v[6] > 24 || v[8] < 0 || v[8] > 127) {
    return file->Fail("input_transform constants out of range");
  }
  const int inputs = (bands + 1) * static_cast<int>(context->size());
  Result<models::Int8Mlp> mlp = models::Int8Mlp::Load(*file, inputs);
  if (!mlp.ok()) return mlp.error();
  return std::shared_ptr<const VadModel>(
      new VadModel(std::move(mlp).value(), std::move(context).value(), transform, bands));
}

Status VadConfig::Validate() const {
  auto fail = [](const std::string& what) { return Status(Error{"vad: " + what}); };
  if (smooth_half_frames < 0 || smooth_half_frames > 50) {
    return fail("smoothing half-width must be in [0, 50] frames of 20 ms (0-1000 ms)");
  }
  if (threshold_q15 < 0 || threshold_q15 > kQ15Max) {
    return fail("threshold " + std::to_string(threshold_q15) + " / 32767 must be in [0, 1]");
  }
  if (min_speech_frames < 0 || min_speech_frames > 100) {
    return fail("minimum speech must be in [0, 100] frames of 10 ms (0-1000 ms)");
  }
  if (hangover_frames < 0 || hangover_frames > 300) {
    return fail("hangover must be in [0, 300] frames of 10 ms (0-3000 ms)");
  }
  return OkStatus();
}

VadSession::VadSession(std::shared_ptr<const VadModel> model, const VadConfig& config,
                       bool allow_simd)
    : model_(std::move(model)),
      smoother_(config.smooth_half_frames),
      decision_(config),
      scratch_(model_->mlp().MakeScratch()),
      floor_q8_(model_->bands()),
      stack_(model_->width(), std::vector<int32_t>(model_->context().begin(), model_->context().end())),
      simd_(allow_simd) {
  smoothed_.reserve(static_cast<size_t>(2 * config.smooth_half_frames + 2));
}

void VadSession::Reset() {
  stack_.Reset();
  primed_ = false;
  smoother_.Reset();
  decision_.Reset();
}

void VadSession::Transform(std::span<const int16_t> logmel, std::span<int8_t> inputs) {
  const InputTransform& p = model_->transform();
  const size_t bands = floor_q8_.size();
  if (!primed_) {
    std::copy(logmel.begin(), logmel.begin() + static_cast<ptrdiff_t>(bands), floor_q8_.begin());
    primed_ = true;
  }
  int32_t sum_q8 = 0;
  size_t b = 0;
#if defined(__aarch64__)
  if (simd_) {  // eight bands at a time in int32 lanes, the loop below's integers
    // vshlq_s32 by -s: the arithmetic shift right of >> s.
    const int32x4_t down = vdupq_n_s32(-p.floor_down_shift), up = vdupq_n_s32(-p.floor_up_shift);
    const int32x4_t snr_shift = vdupq_n_s32(-p.snr_shift), zero = vdupq_n_s32(0);
    const int32x4_t up_max = vdupq_n_s32(p.floor_up_max_q8), snr_max = vdupq_n_s32(p.snr_max_q8);
    int32x4_t sum = zero;
    for (; b + 8 <= bands; b += 8) {
      const int16x8_t x16 = vld1q_s16(&logmel[b]);
      const int32x4_t x[2] = {vmovl_s16(vget_low_s16(x16)), vmovl_high_s16(x16)};
      int16x4_t narrow[2];
      for (int half = 0; half < 2; ++half) {
        int32_t* floor = &floor_q8_[b + 4 * static_cast<size_t>(half)];
        const int32x4_t d = vsubq_s32(x[half], vld1q_s32(floor));
        const int32x4_t step = vbslq_s32(vcltzq_s32(d), vshlq_s32(d, down),
                                         vshlq_s32(vminq_s32(d, up_max), up));
        const int32x4_t floor_new = vaddq_s32(vld1q_s32(floor), step);
        vst1q_s32(floor, floor_new);
        const int32x4_t snr = vminq_s32(vmaxq_s32(vsubq_s32(x[half], floor_new), zero), snr_max);
        narrow[half] = vmovn_s32(vshlq_s32(snr, snr_shift));  // <= 127 (the loader checks)
        sum = vaddq_s32(sum, x[half]);
      }
      vst1_s8(&inputs[b], vmovn_s16(vcombine_s16(narrow[0], narrow[1])));
    }
    sum_q8 = vaddvq_s32(sum);
  }
#endif
  for (; b < bands; ++b) {
    const int32_t x = logmel[b];
    const int32_t d = x - floor_q8_[b];
    floor_q8_[b] += d < 0 ? d >> p.floor_down_shift : std::min(d, p.floor_up_max_q8) >> p.floor_up_shift;
    const int32_t snr_q8 = std::clamp(x - floor_q8_[b], 0, p.snr_max_q8);
    inputs[b] = static_cast<int8_t>(snr_q8 >> p.snr_shift);
    sum_q8 += x;
  }
  // Mean level: sum * mult >> shift (~ / bands), in Q8 dB; >> 8 floors to whole dB.
  const int64_t mean_q8 = (int64_t{sum_q8} * p.energy_mult) >> p.energy_shift;
  inputs[bands] = static_cast<int8_t>(
      std::clamp<int64_t>((mean_q8 >> 8) + p.energy_offset, 0, p.energy_max));
}

void VadSession::Process(std::span<const int16_t> logmel_db_q8, std::vector<VadFrame>& out) {
  Transform(logmel_db_q8, stack_.Next());
  stack_.Commit();
  ScoreFrame(out);
}

void VadSession::Flush(std::vector<VadFrame>& out) {
  // Score the last `lookahead` frames with silence (zero inputs) after the stream, as training did.
  for (int i = 0; i < model_->lookahead(); ++i) {
    stack_.Commit(/*real_frame=*/false);
    ScoreFrame(out);
  }
  smoothed_.clear();
  smoother_.Flush(smoothed_);
  for (const VadFrame& f : smoothed_) decision_.Push(f, out);
  decision_.Flush(out);
}

void VadSession::ScoreFrame(std::vector<VadFrame>& out) {
  const int64_t k = stack_.committed() - 1 - model_->lookahead();  // the frame scored now
  if (k < 0 || k >= stack_.real_frames()) return;
  const uint16_t score = model_->mlp().Run(stack_.Stack(k), scratch_);
  smoothed_.clear();
  smoother_.Push(VadFrame{k, score, false}, smoothed_);
  for (const VadFrame& f : smoothed_) decision_.Push(f, out);
}

ScoreSmoother::ScoreSmoother(int half_width)
    : half_(half_width), window_(static_cast<size_t>(2 * half_width + 1)) {}

void ScoreSmoother::Reset() { pushed_ = emitted_ = 0; }

void ScoreSmoother::Push(VadFrame frame, std::vector<VadFrame>& out) {
  window_[static_cast<size_t>(pushed_ % static_cast<int64_t>(window_.size()))] = frame;
  ++pushed_;
  if (pushed_ - emitted_ > half_) Emit(out);
}

void ScoreSmoother::Flush(std::vector<VadFrame>& out) {
  while (emitted_ < pushed_) Emit(out);
}

void ScoreSmoother::Emit(std::vector<VadFrame>& out) {
  // Frames emitted_ - h .. emitted_ + h that exist; the window holds the last 2h + 1 pushed.
  const int64_t first = std::max<int64_t>(
      {emitted_ - half_, pushed_ - static_cast<int64_t>(window_.size()), int64_t{0}});
  const int64_t last = std::min<int64_t>(emitted_ + half_, pushed_ - 1);
  int64_t sum = 0;
  for (int64_t i = first; i <= last; ++i) {
    sum += window_[static_cast<size_t>(i % static_cast<int64_t>(window_.size()))].score_q15;
  }
  VadFrame centre = window_[static_cast<size_t>(emitted_ % static_cast<int64_t>(window_.size()))];
  centre.score_q15 = static_cast<uint16_t>(sum / (last - first + 1));
  out.push_back(centre);
  ++emitted_;
}

SpeechDecision::SpeechDecision(const VadConfig& config) : config_(config) {
  pending_.reserve(static_cast<size_t>(config_.min_speech_frames) + 1);
}

void SpeechDecision::Reset() {
  pending_.clear();
  in_speech_ = false;
  off_run_ = on_run_ = 0;
}

void SpeechDecision::Flush(std::vector<VadFrame>& out) {
  for (const VadFrame& f : pending_) out.push_back(f);
  pending_.clear();
}

void SpeechDecision::Push(VadFrame frame, std::vector<VadFrame>& out) {
  const bool voice = frame.score_q15 >= config_.threshold_q15;
  if (in_speech_) {
    off_run_ = voice ? 0 : off_run_ + 1;
    if (off_run_ > config_.hangover_frames) {
      in_speech_ = false;
      on_run_ = 0;
    }
    frame.speech = in_speech_;
  } else {
    on_run_ = voice ? on_run_ + 1 : 0;
    if (on_run_ >= std::max(1, config_.min_speech_frames)) {
      in_speech_ = true;
      off_run_ = 0;
      // The run's frames (the newest on_run_ - 1 pending ones) are speech.
      for (size_t i = pending_.size() - std::min(pending_.size(), static_cast<size_t>(on_run_ - 1));
           i < pending_.size(); ++i) {
        pending_[i].speech = true;
      }
    }
    frame.speech = in_speech_;
  }
  pending_.push_back(frame);
  while (pending_.size() > static_cast<size_t>(config_.min_speech_frames)) {
    out.push_back(pending_.front());
    pending_.erase(pending_.begin());
  }
}

}  // namespace earshot::vad
