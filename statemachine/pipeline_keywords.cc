// The Pipeline's keyword stage (pipeline.h): one session over the keyword set, a detector per
// keyword with its sensitivity's threshold, and what its wakes do to the cascade.
#include <algorithm>
#include <cmath>

#include "audio/format.h"
#include "base/q15.h"
#include "models/kws/keywords.h"
#include "statemachine/pipeline.h"
#include "statemachine/stage_timer.h"

namespace earshot::statemachine {

// A session over the keyword set, and a detector per keyword with its sensitivity's threshold.
void Pipeline::MakeKeywordStage() {
  kws_.reset();
  detectors_.clear();
  reference_spotter_.reset();  // of the models before
  if (!models_.kws) return;
  const std::vector<kws::Keyword>& keywords = models_.kws->keywords();
  models_.sensitivities.resize(keywords.size(), kws::kDefaultSensitivity);
  verify_thresholds_.assign(keywords.size(), -1);
  kws_ = std::make_unique<kws::KeywordSetSession>(models_.kws, settings_.kws);
  for (size_t k = 0; k < keywords.size(); ++k) {
    kws::KwsConfig config = settings_.kws;
    config.refractory_frames = keywords[k].refractory_frames;
    const std::optional<kws::KwsVerify>& verify = keywords[k].model->verify();
    // The spotter of a keyword with a second stage finds candidates at its fixed threshold; the
    // sensitivity is the check's (SetThreshold).
    if (verify && models_.verifier && models_.verifier->checks(k)) {
      config.threshold_q15 = verify->candidate_threshold_q15;
      verify_thresholds_[k] = 0;
    }
    detectors_.emplace_back(config);
    SetThreshold(k);
  }
  wakes_.reserve(keywords.size());
  // The window a candidate is checked on (KeyphraseVerifier::Confidence), so that no check
  // allocates.
  const int window_frames =
      pocketsphinx::kVerifyFramesBefore + pocketsphinx::kVerifyFramesAfter + 1;
  verify_samples_.reserve(static_cast<size_t>(window_frames) * audio::kFrameSamples);
}

bool Pipeline::SetSensitivity(std::string_view name, double sensitivity) {
  bool found = false;
  for (PipelineModels* models : {&models_, pending_models_ ? &*pending_models_ : nullptr}) {
    if (models == nullptr || !models->kws) continue;
    const std::optional<size_t> k = models->kws->Find(name);
    if (!k) continue;
    found = true;
    models->sensitivities[*k] = sensitivity;
    if (models == &models_) SetThreshold(*k);
  }
  return found;
}

void Pipeline::SetPlayback(bool playback, int echo_delay_frames) {
  echo_delay_frames_ = echo_delay_frames;
  if (playback == playback_) return;
  playback_ = playback;
  if (settings_.playback_sensitivity_shift == 0.0) return;
  for (size_t k = 0; k < detectors_.size(); ++k) SetThreshold(k);
}

// Keyword k's threshold from its sensitivity, shifted while the playback is cancelled: the
// second stage's where it has one, else the spotter's.
void Pipeline::SetThreshold(size_t k) {
  const double shift = playback_ ? settings_.playback_sensitivity_shift : 0.0;
  const double sensitivity = std::clamp(models_.sensitivities[k] + shift, 0.0, 1.0);
  const kws::KwsModel& model = *models_.kws->keywords()[k].model;
  if (verify_thresholds_[k] >= 0) {
    verify_thresholds_[k] = kws::ThresholdQ15(sensitivity, model.verify()->default_threshold_q15);
  } else {
    detectors_[k].set_threshold_q15(kws::ThresholdQ15(sensitivity, model.default_threshold_q15()));
  }
}

void Pipeline::RunKeyword(int64_t k) {
  if (!kws_) return;
  {
    StageTimer timer(stats_.kws);
    kws_->Process(ring_.Row(k));
    const std::span<const uint16_t> scores = kws_->scores();
    for (size_t i = 0; i < detectors_.size(); ++i) {
      if (std::optional<kws::Wake> wake = detectors_[i].Push(k, scores[i])) Found(i, *wake);
    }
  }
  kws_next_ = k + 1;
  OnWakes(k);
}

// The wakes found at frame k (each ended at its wake.frame <= k), if any. The runs over their
// thresholds that other keywords have in progress end with them, as wakes too: those keywords
// were heard as well, and the keyword stage stops for the request. In time order (ties in the
// keywords' order): the first starts the request (on the frame after it), the others are reported
// in it.
void Pipeline::OnWakes(int64_t k) {
  if (wakes_.empty()) return;
  FlushWakes();
  std::sort(wakes_.begin(), wakes_.end(), [](const KeywordWake& a, const KeywordWake& b) {
    return a.wake.frame != b.wake.frame ? a.wake.frame < b.wake.frame : a.keyword < b.keyword;
  });
  const int64_t first = wakes_.front().wake.frame;
  request_ = NewRequestId();
  for (const KeywordWake& w : wakes_) {
    ++stats_.wakes;
    const double t = EndTime(w.wake.frame);
    sink_->Emit(WakeEvent{t, models_.kws->keywords()[w.keyword].name,
                          ScoreFromQ15(w.wake.score_q15), request_, playback_});
    Enter(Next(state_, Input::kWake, speech_), k, t);  // voice -> command; command stays
  }
  wakes_.clear();
  BeginRequest(first + 1, k);
}

// Ends every keyword's run over its threshold in progress, as a wake.
void Pipeline::FlushWakes() {
  for (size_t i = 0; i < detectors_.size(); ++i) {
    if (std::optional<kws::Wake> wake = detectors_[i].Flush()) Found(i, *wake);
  }
}

bool Pipeline::KeywordRunInProgress() const {
  return std::any_of(detectors_.begin(), detectors_.end(),
                     [](const kws::WakeDetector& detector) { return detector.run_start() >= 0; });
}

double Pipeline::event_time() const {
  int64_t reached = speech_end_ >= 0 ? std::min(decided_end_, speech_end_) : decided_end_;
  for (const kws::WakeDetector& detector : detectors_) {
    if (detector.run_start() >= 0) reached = std::min(reached, detector.run_start());
  }
  return audio::FramesToSeconds(reached);
}

void Pipeline::PushReference(const audio::Frame& played) {
  if (!kws_ || state_ == State::kMuted) return;
  if (!reference_spotter_) {
    auto front_end = features::FrontEnd::Create(front_end_->config());
    if (!front_end.ok()) return;  // the same config as the microphone's, which was made
    reference_spotter_ = std::make_unique<ReferenceSpotter>(std::move(front_end).value(),
                                                            models_.kws, settings_.kws);
  }
  reference_spotter_->Push(ring_.end(), played, detectors_);
}

// Keyword i's detector found `wake`: a wake, once its second stage (if it has one) confirms it.
// A run that went on after the speech ended (OnSpeechChange) is checked whole, but the keyword
// ended with the speech.
// While the playback sounds, one it said as well is the playback's (PushReference).
void Pipeline::Found(size_t i, kws::Wake wake) {
  if (playback_ && reference_spotter_ &&
      reference_spotter_->Said(i, wake.frame, echo_delay_frames_)) {
    ++stats_.self_wakes;  // the playback said it: its refractory period holds, as for a wake
    return;
  }
  if (std::optional<kws::Wake> verified = Verified(i, wake)) {
    if (speech_cut_ >= 0 && wake.run_start < speech_cut_) {
      verified->frame = std::min(verified->frame, speech_cut_ - 1);
    }
    wakes_.push_back({i, *verified});
  } else {
    ++stats_.candidates_rejected;
    detectors_[i].Rejected();
  }
}

// A candidate of a keyword with a second stage: checked on the audio around its end that the ring
// still holds, its score the verified confidence; none when that is under the keyword's threshold.
std::optional<kws::Wake> Pipeline::Verified(size_t i, kws::Wake wake) {
  if (verify_thresholds_[i] < 0) return wake;
  const double confidence =
      models_.verifier->Confidence(i, wake.frame, wake.run_hops, ring_, verify_samples_);
  const auto confidence_q15 = static_cast<int32_t>(std::lround(confidence * kQ15Max));
  if (confidence_q15 < verify_thresholds_[i]) return std::nullopt;
  wake.score_q15 = static_cast<uint16_t>(confidence_q15);
  return wake;
}

// The keyword spotter starts; coming from silence it first reads the pre-roll (without detecting:
// a keyword there would end before the speech that the VAD just reported), or only the frames it
// missed if it stopped within the pre-roll. After a request it starts fresh.
void Pipeline::StartKeyword(int64_t k, bool with_preroll) {
  if (!kws_) return;
  for (kws::WakeDetector& detector : detectors_) {
    (void)detector.Flush();  // a run cut short by a mute is no wake
  }
  int64_t first = with_preroll ? std::max(ring_.begin(), k - settings_.preroll_frames) : k;
  if (with_preroll && kws_next_ >= first && kws_next_ <= k) {
    first = kws_next_;  // stopped within the pre-roll: carry on as if it had run all along
  } else {
    kws_->Reset();
  }
  for (int64_t j = first; j < k; ++j) {
    StageTimer timer(stats_.kws);
    kws_->Process(ring_.Row(j));
  }
  kws_next_ = k;
}

}  // namespace earshot::statemachine
