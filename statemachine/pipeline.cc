#include "statemachine/pipeline.h"

#include <algorithm>
#include <cmath>

#include "audio/format.h"
#include "options/stage_options.h"
#include "statemachine/model_library.h"
#include "statemachine/stage_timer.h"

namespace earshot::statemachine {
namespace {

// A time in seconds on the 10 ms frame grid (a sum such as 1.05 + 2.51 prints as 3.56, not as
// 3.5600000000000005).
double OnFrameGrid(double s) {
  return std::round(s * audio::kFramesPerSecond) / audio::kFramesPerSecond;
}

// Frames the VAD holds back before deciding one: its lookahead, the smoother's half window and the
// minimum speech run (vad.h), plus slack.
int VadDelayFrames(const vad::VadModel& model, const vad::VadConfig& config) {
  return model.lookahead() + config.smooth_half_frames + config.min_speech_frames + 4;
}

}  // namespace

Result<StageSet> StageSet::Parse(std::string_view text) {
  if (text == "vad") return StageSet{false, false};
  if (text == "vad,kws") return StageSet{true, false};
  if (text == "all" || text == "vad,kws,stt") return StageSet{true, true};
  return Error{"--stages: expected vad, vad,kws or all, got '" + std::string(text) + "'"};
}

Result<PipelineModels> PipelineModels::Load(const config::Config& config, StageSet stages) {
  ModelLibrary library(config, stages);
  const SttSize stt = config.String("stt.profile") == "small" ? SttSize::kSmall : SttSize::kLarge;
  return library.For(ProfileModels{KwsSize::kLarge, stt});
}

Result<std::unique_ptr<Pipeline>> Pipeline::Create(const config::Config& config, StageSet stages,
                                                   EventSink* sink) {
  Result<PipelineModels> models = PipelineModels::Load(config, stages);
  if (!models.ok()) return models.error();
  return Create(config, std::move(models).value(), sink);
}

Result<std::unique_ptr<Pipeline>> Pipeline::Create(const config::Config& config,
                                                   PipelineModels models, EventSink* sink) {
  auto front_end = features::FrontEnd::Create(features::FrontEndConfig{});
  if (!front_end.ok()) return front_end.error();
  Settings settings;
  Result<vad::VadConfig> vad_config = options::BindVad(config);
  if (!vad_config.ok()) return vad_config.error();
  settings.vad = *vad_config;
  Result<kws::KwsConfig> kws_config = options::BindKws(config);
  if (!kws_config.ok()) return kws_config.error();
  settings.kws = *kws_config;
  settings.endpoint = EndpointConfig::FromConfig(config);
  // After the keyword the VAD says speech while its model still reads the keyword in its context
  // (frames back to the first offset), then for half its smoothing and its hangover.
  settings.endpoint.trail_frames =
      models.vad->lookback() + settings.vad.smooth_half_frames + settings.vad.hangover_frames;
  settings.preroll_frames = static_cast<int>(config.Int("audio.preroll_ms") / audio::kFrameMs);
  settings.partial_interval_frames =
      static_cast<int>(config.Int("stt.partial_interval_ms") / audio::kFrameMs);
  settings.playback_sensitivity_shift = config.Float("kws.playback_sensitivity_shift");
  return std::unique_ptr<Pipeline>(
      new Pipeline(std::move(front_end).value(), std::move(models), settings, sink));
}

Pipeline::Pipeline(std::unique_ptr<features::FrontEnd> front_end, PipelineModels models,
                   const Settings& settings, EventSink* sink)
    : front_end_(std::move(front_end)),
      models_(std::move(models)),
      settings_(settings),
      sink_(sink),
      // The pre-roll, or what a keyword's second stage reads before a candidate's end (the
      // candidate found at most max_hold_frames after it), if longer; the VAD's delay after it.
      ring_(std::max(settings.preroll_frames,
                     pocketsphinx::kVerifyFramesBefore + settings.kws.max_hold_frames) +
                VadDelayFrames(*models_.vad, settings.vad),
            front_end_->config().mel_bands),
      vad_(models_.vad, settings.vad),
      endpointer_(settings.endpoint) {
  decided_.reserve(64);
  MakeKeywordStage();
  if (models_.stt) stt_ = models_.stt->NewSession();
}

void Pipeline::Push(const audio::Frame& frame) {
  ++stats_.frames;
  if (state_ == State::kMuted) return;
  {
    StageTimer timer(stats_.front_end);
    front_end_->Process(frame);
    ring_.Push(frame, front_end_->logmel_db_q8());
  }
  {
    StageTimer timer(stats_.vad);
    vad_.Process(front_end_->logmel_db_q8(), decided_);
  }
  for (const vad::VadFrame& f : decided_) OnDecided(frame_base_ + f.index, f.speech);
  decided_.clear();
}

void Pipeline::Finish() {
  if (state_ == State::kMuted) return;
  vad_.Flush(decided_);
  for (const vad::VadFrame& f : decided_) OnDecided(frame_base_ + f.index, f.speech);
  decided_.clear();
  const int64_t end = stats_.frames;
  decided_end_ = end;
  if (state_ == State::kCommand) EndRequest(end - 1);
  AnnounceSpeech(false, StartTime(end));
  speech_ = false;
  Enter(State::kIdle, end, StartTime(end));
}

void Pipeline::Mute() {
  if (state_ == State::kMuted) return;
  const double t = time();
  if (state_ == State::kCommand) AbandonRequest(t);
  decided_end_ = stats_.frames;  // the frames the VAD had not decided are dropped with the audio
  AnnounceSpeech(false, t);
  speech_ = false;
  Enter(Next(state_, Input::kMute, false), stats_.frames, t);
}

void Pipeline::Unmute() {
  if (state_ != State::kMuted) return;
  ResetStreamState();  // the audio before the gap must not run into the audio after it
  Enter(Next(state_, Input::kUnmute, false), stats_.frames, time());
}

void Pipeline::SwapModels(PipelineModels models) {
  pending_models_ = std::move(models);
  if (pending_models_->kws) {
    pending_models_->sensitivities.resize(pending_models_->kws->keywords().size(),
                                          kws::kDefaultSensitivity);
  }
  if (state_ == State::kIdle || state_ == State::kMuted) ApplyPendingModels();
}

void Pipeline::OnDecided(int64_t k, bool speech) {
  decided_end_ = k + 1;
  if (speech != speech_) OnSpeechChange(k, speech);
  if (state_ == State::kVoice) {
    RunKeyword(k);
    if (speech_cut_ >= 0) AfterSpeechCut(k);  // none once a wake has left voice (Enter)
  } else if (state_ == State::kCommand) {
    RunCommand(k);
  }
}

// In `command` the request is one stretch of speech whatever pauses it has: its end is the
// endpoint's (EndRequest), not the VAD's. When speech ends during a keyword's run of high scores,
// the keyword stage goes on until the run ends (the detector bounds it: a dip of kws.gap_ms, at
// most KwsConfig::max_hold_frames): the spotter's score stays high just after the keyword, and the
// run's length is part of a verified confidence. Speech that comes back before then goes on as if
// it had not paused.
void Pipeline::OnSpeechChange(int64_t k, bool speech) {
  speech_ = speech;
  if (state_ == State::kVoice && !speech && KeywordRunInProgress()) {
    if (speech_cut_ < 0) speech_cut_ = k;
    speech_end_ = k;
    return;
  }
  if (state_ == State::kVoice && speech && speech_end_ >= 0) {  // back before its end was said
    speech_end_ = -1;
    return;
  }
  if (state_ == State::kCommand) return;
  AnnounceSpeech(speech, StartTime(k));
  Enter(Next(state_, speech ? Input::kSpeechStart : Input::kSpeechEnd, speech), k, StartTime(k));
}

void Pipeline::RunCommand(int64_t k) {
  if (!FeedStt(k)) return;
  if (endpointer_.Push(speech_) == EndReason::kNone) {
    EmitPartial(k);
    return;
  }
  EndRequest(k);
}

// Feeds frame k to the STT; on a decoder error the request is abandoned (false).
bool Pipeline::FeedStt(int64_t k) {
  request_fed_end_ = k + 1;
  if (audio_sink_) audio_sink_->RequestAudio(request_, k * audio::kFrameSamples, ring_.Samples(k));
  if (!stt_) return true;
  StageTimer timer(stats_.stt);
  Status fed = stt_->Feed(ring_.Samples(k));
  if (fed.ok()) return true;
  sink_->Emit(ErrorEvent{EndTime(k), "stt", fed.error().message});
  AbandonRequest(EndTime(k));
  Enter(Next(state_, Input::kEndpoint, speech_), k, EndTime(k));
  return false;
}

void Pipeline::EmitPartial(int64_t k) {
  const int interval = settings_.partial_interval_frames;
  if (!stt_ || interval <= 0 || endpointer_.frames() % interval != 0) return;
  std::string partial;
  {
    StageTimer timer(stats_.stt, 0);
    partial = stt_->Partial();
  }
  if (partial.empty() || partial == last_partial_) return;
  last_partial_ = partial;
  TranscriptEvent event{EndTime(k), partial, false, 0.0, StartTime(request_start_), EndTime(k)};
  event.request = request_;
  sink_->Emit(event);
}

// The endpoint at frame k: the final transcript, then the end of the request's speech unless the
// VAD still hears some, then the next state.
void Pipeline::EndRequest(int64_t k) {
  const double t = EndTime(k);
  ++stats_.requests;
  if (audio_sink_) {
    audio_sink_->RequestEnded(request_, request_fed_end_ * audio::kFrameSamples, false);
  }
  if (stt_) {
    Result<stt::SttResult> result = [&] {
      StageTimer timer(stats_.stt, 0, &stats_.stt_end_nanoseconds_max);
      return stt_->End();
    }();
    if (!result.ok()) {
      sink_->Emit(ErrorEvent{t, "stt", result.error().message});
      EmitCancelled(t);
    } else {  // final, if empty: the request ended without words
      const double offset = StartTime(request_start_);
      const double first = result->words.empty() ? 0.0 : result->words.front().start;
      const double last = result->words.empty() ? t - offset : result->words.back().end;
      TranscriptEvent final{t,
                            result->text,
                            true,
                            result->confidence,
                            OnFrameGrid(offset + first),
                            OnFrameGrid(offset + last)};
      final.request = request_;
      sink_->Emit(final);
      EmitCommand(t, *result);
    }
  }
  AnnounceSpeech(speech_, t);
  Enter(Next(state_, Input::kEndpoint, speech_), k, t);
}

// A request that ends before its endpoint at time t: the words so far are dropped with it, and
// its final transcript says so.
void Pipeline::AbandonRequest(double t) {
  if (audio_sink_) {
    audio_sink_->RequestEnded(request_, request_fed_end_ * audio::kFrameSamples, true);
  }
  if (stt_) (void)stt_->End();
  EmitCancelled(t);
}

void Pipeline::EmitCancelled(double t) {
  if (!stt_) return;  // no STT, no transcripts
  TranscriptEvent cancelled{t, "", true, 0.0, StartTime(request_start_), t};
  cancelled.cancelled = true;
  cancelled.request = request_;
  sink_->Emit(cancelled);
}

// With command sets, the decoder judged the request: a command, or rejected.
void Pipeline::EmitCommand(double t, const stt::SttResult& result) {
  if (!result.command && !result.rejected) return;  // no command sets
  CommandEvent event;
  event.t = t;
  event.request = request_;
  if (result.command) {
    event.set = result.command->set;
    event.intent = result.command->intent;
    event.slots = result.command->slots;
  }
  event.text = result.text;
  event.confidence = result.confidence;
  event.rejected = !result.command;
  sink_->Emit(event);
}

bool Pipeline::StartRequest(uint64_t id) {
  if (state_ == State::kMuted) return false;
  const int64_t k = decided_end_ - 1;  // the last decided frame: the "keyword" ends there
  const double t = EndTime(k);
  if (state_ == State::kCommand) AbandonRequest(t);
  request_ = id;
  Enter(State::kCommand, k, t);
  BeginRequest(k + 1, k);
  return true;
}

bool Pipeline::CancelRequest() {
  if (state_ != State::kCommand) return false;
  const int64_t k = decided_end_ - 1;
  const double t = EndTime(k);
  AbandonRequest(t);
  AnnounceSpeech(speech_, t);
  Enter(Next(state_, Input::kEndpoint, speech_), k, t);
  return true;
}

// Frame k in voice after a speech end that runs went on through (OnSpeechChange), no wake yet: once
// the runs have ended, the speech end is reported at its own time, unless the speech came back. In
// silence a run still going a whole hold after the speech end (one begun there) ends at once, as
// a wake if its keyword says so.
void Pipeline::AfterSpeechCut(int64_t k) {
  const bool held = speech_end_ >= 0 && k - speech_end_ >= settings_.kws.max_hold_frames;
  if (KeywordRunInProgress() && !held) return;
  FlushWakes();
  OnWakes(k);
  if (state_ != State::kVoice) return;
  const int64_t end = speech_end_;
  speech_cut_ = speech_end_ = -1;
  if (end < 0) return;
  AnnounceSpeech(false, StartTime(end));
  Enter(Next(state_, Input::kSpeechEnd, false), k, StartTime(end));
}

// speech_start and speech_end in pairs: in `command` the VAD's changes are not reported, and a
// push-to-talk request may start in silence and end in speech.
void Pipeline::AnnounceSpeech(bool speech, double t) {
  if (speech == speech_announced_) return;
  speech_announced_ = speech;
  if (speech)
    sink_->Emit(SpeechStartEvent{t});
  else
    sink_->Emit(SpeechEndEvent{t});
}

// Moves to `next` at frame k (event time t): starts and stops the stages and says so.
void Pipeline::Enter(State next, int64_t k, double t) {
  const State previous = state_;
  if (next == previous) return;
  state_ = next;
  speech_cut_ = speech_end_ = -1;  // only voice has them
  if (next == State::kVoice) StartKeyword(k, previous == State::kIdle);
  sink_->Emit(StateEvent{t, std::string(StateName(next))});
  if (next == State::kIdle && pending_models_) ApplyPendingModels();
}

// The request starts with the frame after the keyword's end, so the keyword is not transcribed
// and speech that follows it without a pause is; frames first..k were decided while the detector
// waited for the keyword's end and are fed now.
void Pipeline::BeginRequest(int64_t first, int64_t k) {
  request_start_ = first;
  request_fed_end_ = first;
  if (audio_sink_) audio_sink_->RequestStarted(request_, first * audio::kFrameSamples);
  endpointer_.Start();
  last_partial_.clear();
  if (stt_) {
    Status begun = stt_->Begin();
    if (!begun.ok()) {
      sink_->Emit(ErrorEvent{EndTime(k), "stt", begun.error().message});
      AbandonRequest(EndTime(k));
      Enter(Next(state_, Input::kEndpoint, speech_), k, EndTime(k));
      return;
    }
  }
  for (int64_t j = first; j <= k && state_ == State::kCommand; ++j) RunCommand(j);
}

void Pipeline::ApplyPendingModels() {
  models_.kws = pending_models_->kws;
  models_.sensitivities = std::move(pending_models_->sensitivities);
  models_.stt = pending_models_->stt;
  pending_models_.reset();
  MakeKeywordStage();
  kws_next_ = -1;
  stt_ = models_.stt ? models_.stt->NewSession() : nullptr;
}

void Pipeline::ResetStreamState() {
  front_end_->Reset();
  vad_.Reset();
  frame_base_ = stats_.frames;
  decided_end_ = frame_base_;
  kws_next_ = -1;
  ring_.Reset(frame_base_);
  speech_ = false;
  speech_announced_ = false;
  speech_cut_ = speech_end_ = -1;
}

}  // namespace earshot::statemachine
