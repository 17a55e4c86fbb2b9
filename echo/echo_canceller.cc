#include "echo/echo_canceller.h"

#include <speex/speex_echo.h>
#include <speex/speex_preprocess.h>

#include <algorithm>
#include <string>

namespace earshot::echo {
namespace {

// The denoiser's largest attenuation of noise (dB): 1, where speexdsp's default is 15.
constexpr int kNoiseSuppressDb = -1;

}  // namespace

Result<std::unique_ptr<EchoCanceller>> EchoCanceller::Create(const EchoCancellerConfig& config) {
  if (config.filter_ms < audio::kFrameMs || config.filter_ms > 1000) {
    return Error{"echo: filter of " + std::to_string(config.filter_ms) +
                 " ms: expected 10 to 1000"};
  }
  if (config.delay.max_delay_frames < 0 || config.delay.window_frames < 1 ||
      config.delay.update_frames < 1 || config.lead_frames < 0) {
    return Error{"echo: the delay search's frames must be positive"};
  }
  const int filter_samples = config.filter_ms * audio::kSampleRate / 1000;
  SpeexEchoState* echo = speex_echo_state_init(audio::kFrameSamples, filter_samples);
  SpeexPreprocessState* preprocess =
      speex_preprocess_state_init(audio::kFrameSamples, audio::kSampleRate);
  if (echo == nullptr || preprocess == nullptr) {
    if (echo != nullptr) speex_echo_state_destroy(echo);
    if (preprocess != nullptr) speex_preprocess_state_destroy(preprocess);
    return Error{"echo: speexdsp could not allocate its state"};
  }
  int rate = audio::kSampleRate, on = 1, off = 0, suppress = config.suppress_db;
  int noise_db = kNoiseSuppressDb;
  speex_echo_ctl(echo, SPEEX_ECHO_SET_SAMPLING_RATE, &rate);
  // The echo's residue is suppressed, the room's noise next to not at all, and no gain control:
  // what the models hear while something plays differs from what they hear while nothing does by
  // the echo alone. (speexdsp suppresses the residue inside its denoiser, so that stays on.)
  speex_preprocess_ctl(preprocess, SPEEX_PREPROCESS_SET_DENOISE, &on);
  speex_preprocess_ctl(preprocess, SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, &noise_db);
  speex_preprocess_ctl(preprocess, SPEEX_PREPROCESS_SET_AGC, &off);
  speex_preprocess_ctl(preprocess, SPEEX_PREPROCESS_SET_DEREVERB, &off);
  speex_preprocess_ctl(preprocess, SPEEX_PREPROCESS_SET_ECHO_SUPPRESS, &suppress);
  speex_preprocess_ctl(preprocess, SPEEX_PREPROCESS_SET_ECHO_STATE, echo);
  return std::unique_ptr<EchoCanceller>(new EchoCanceller(config, echo, preprocess));
}

EchoCanceller::EchoCanceller(const EchoCancellerConfig& config, SpeexEchoState_* echo,
                             SpeexPreprocessState_* preprocess)
    : config_(config),
      echo_(echo),
      preprocess_(preprocess),
      estimator_(config.delay),
      history_(static_cast<size_t>(config.delay.max_delay_frames + 1)),
      hold_frames_(config.delay.max_delay_frames + config.filter_ms / audio::kFrameMs) {}

EchoCanceller::~EchoCanceller() {
  speex_preprocess_state_destroy(preprocess_);
  speex_echo_state_destroy(echo_);
}

const audio::Frame& EchoCanceller::Delayed(int lag) const {
  static const audio::Frame kSilence{};
  const int64_t n = static_cast<int64_t>(history_.size());
  const int64_t index = pushed_ - 1 - lag;
  return index < 0 ? kSilence : history_[static_cast<size_t>(index % n)];
}

int EchoCanceller::FilterLag() const {
  return std::max(0, estimator_.delay_frames() - config_.lead_frames);
}

void EchoCanceller::Process(const audio::Frame& reference, audio::Frame& microphone) {
  ++stats_.frames;
  history_[static_cast<size_t>(pushed_ % static_cast<int64_t>(history_.size()))] = reference;
  ++pushed_;
  if (FrameDb(reference) > config_.sound_db) last_sound_ = pushed_ - 1;
  stats_.active = last_sound_ >= 0 && pushed_ - 1 - last_sound_ <= hold_frames_;
  if (!stats_.active) return;  // nothing played lately: nothing to cancel, nothing spent
  if (estimator_.Push(reference, microphone)) {
    ++stats_.delay_changes;
    speex_echo_state_reset(echo_);  // its taps belong to the old delay
  }
  stats_.delay_ms = estimator_.delay_frames() * audio::kFrameMs;
  const audio::Frame& played = Delayed(FilterLag());
  audio::Frame out;
  speex_echo_cancellation(echo_, microphone.data(), played.data(), out.data());
  speex_preprocess_run(preprocess_, out.data());
  microphone = out;
  ++stats_.active_frames;
}

void EchoCanceller::ProcessWithoutReference() {
  ++stats_.frames;
  if (stats_.active) ++stats_.reference_gaps;
  stats_.active = false;
  std::fill(history_.begin(), history_.end(), audio::Frame{});
  last_sound_ = -1;
  estimator_.Reset();
}

}  // namespace earshot::echo
