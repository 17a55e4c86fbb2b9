// Pipeline: the cascade over one stream of 10 ms frames, the same code offline (`earshot run`) and in
// the daemon. The front end and the VAD see every frame; the keyword spotter runs only in `voice`
// (starting on the pre-roll), the STT only in `command`; `muted` drops audio entirely. Events go to
// an EventSink, in stream order, with stream times.
//
// Timing: the VAD decides frame k a fixed number of frames after k arrives (its lookahead, score
// smoothing and minimum speech run). The cascade runs on that decided timeline: the keyword spotter
// and the STT read frame k from a ring of recent frames when k is decided, so every event is in
// order and the keyword spotter sees the speech's onset. The cost is the VAD's delay (about 0.2 s)
// on every event.
//
// Models are immutable and shared (PipelineModels); swaps requested with SwapModels take effect the
// next time the cascade is idle, so a request always finishes with the models it started with.
// Keywords: every keyword of the set is scored on every hop the keyword stage runs, each with its
// own detector (its sensitivity's threshold, its refractory period). The first wake starts the
// request; a keyword whose wake comes on the same hop, or whose run over its threshold was in
// progress then, is reported too (in time order), but starts no other request: in `command` the
// keyword stage does not run, and a wake changes nothing.
// Requests: each has an id (1, 2, ...; NewRequestId) carried by its wake, transcript and command
// events. A request starts at a wake word or at StartRequest (push-to-talk: as if a wake word had
// ended on the last decided frame); it ends at its endpoint, or before it (Mute, CancelRequest, a
// decoder error) with a final transcript that says it was cancelled.
// Not thread-safe: one thread pushes frames and calls the other methods, except NewRequestId.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "audio/format.h"
#include "audio/ring_buffer.h"
#include "base/result.h"
#include "config/config.h"
#include "features/front_end.h"
#include "models/kws/detector.h"
#include "models/kws/keyword_set.h"
#include "models/kws/kws.h"
#include "models/pocketsphinx/keyphrase_verifier.h"
#include "models/stt/stt.h"
#include "models/vad/vad.h"
#include "statemachine/cascade.h"
#include "statemachine/endpointer.h"
#include "statemachine/event.h"
#include "statemachine/reference_spotter.h"

namespace earshot::statemachine {

// Which stages run (`earshot run --stages vad|vad,kws|all`).
struct StageSet {
  bool kws = true;
  bool stt = true;
  static Result<StageSet> Parse(std::string_view text);
};

struct PipelineModels {
  std::shared_ptr<const vad::VadModel> vad;
  std::shared_ptr<const kws::KeywordSet> kws;  // null when the keyword stage is off
  // The second stage of the keywords whose models ask for one (kws_verify), by keyword index;
  // null when none does.
  std::shared_ptr<const pocketsphinx::KeyphraseVerifier> verifier;
  // Each keyword's sensitivity (0 .. 1) by its index in `kws`: the config's, or as SetSensitivity
  // left it; a missing one is kws::kDefaultSensitivity.
  std::vector<double> sensitivities;
  std::shared_ptr<const stt::SttModel> stt;  // null when the STT stage is off
  // The models the config names, for the stages in `stages`: the keywords' large models and the
  // stt.profile, whatever the governor would choose.
  static Result<PipelineModels> Load(const config::Config& config, StageSet stages);
};

// Work done by one stage: frames it processed and the time it took.
struct StageCounter {
  int64_t frames = 0;
  int64_t nanoseconds = 0;
};

struct PipelineStats {
  int64_t frames = 0;  // 10 ms frames of the stream, muted ones included
  StageCounter front_end, vad, kws, stt;
  int64_t wakes = 0;
  int64_t candidates_rejected = 0;  // keyword candidates the second stage did not confirm
  int64_t self_wakes = 0;  // wakes the device's own playback said too (not reported)
  int64_t requests = 0;  // requests that reached their endpoint
  int64_t stt_end_nanoseconds_max = 0;  // the longest wait for a final transcript after the endpoint
};

// A request's audio as the STT reads it (earshotd's OpenRequestAudio), on the pipeline's thread, in
// order: Started, Audio for each 10 ms frame from the one after the wake word (or a push-to-talk's
// first) to the endpoint, Ended. Samples are counted from the stream's start, muted ones included.
class RequestAudioSink {
 public:
  virtual ~RequestAudioSink() = default;
  virtual void RequestStarted(uint64_t request, int64_t first_sample) = 0;
  virtual void RequestAudio(uint64_t request, int64_t sample, std::span<const int16_t> samples) = 0;
  virtual void RequestEnded(uint64_t request, int64_t end_sample, bool cancelled) = 0;
};

class Pipeline {
 public:
  // `sink` is not owned and must outlive the pipeline.
  static Result<std::unique_ptr<Pipeline>> Create(const config::Config& config, StageSet stages,
                                                  EventSink* sink);
  static Result<std::unique_ptr<Pipeline>> Create(const config::Config& config,
                                                  PipelineModels models, EventSink* sink);

  // The stream's next 10 ms frame.
  void Push(const audio::Frame& frame);
  // The end of the stream: decides the pending frames, ends a request in progress, ends speech.
  void Finish();
  void Mute();
  void Unmute();
  // The keyword and STT models to use from the next idle moment on (at once if idle now).
  void SwapModels(PipelineModels models);
  // A request id that no other request of this pipeline has; any thread.
  uint64_t NewRequestId() { return next_request_id_.fetch_add(1) + 1; }
  // Push-to-talk: request `id` (from NewRequestId) starts now, as if a wake word had just ended;
  // a request in progress is cancelled first. False (nothing done) when muted.
  bool StartRequest(uint64_t id);
  // Ends the request in progress with a cancelled final transcript; false if there is none.
  bool CancelRequest();
  // Where each request's audio goes too (not owned; null: nowhere).
  void SetRequestAudioSink(RequestAudioSink* sink) { audio_sink_ = sink; }
  // The sensitivity (0 .. 1) of the keyword `name` from the next hop on, in the models in use and
  // in those waiting to be swapped in; false if neither has such a keyword.
  bool SetSensitivity(std::string_view name, double sensitivity);
  // Whether the frames pushed from now on have the device's own playback cancelled from them
  // (echo/echo_canceller.h), its echo `echo_delay_frames` behind what was played: the wakes heard
  // meanwhile say so.
  // While it is, every keyword's sensitivity is shifted by kws.playback_sensitivity_shift.
  void SetPlayback(bool playback, int echo_delay_frames = 0);
  // What the device played with the frame the next Push gives, while it plays: the keyword
  // spotter runs on it too, and a wake the playback said as well is the playback's: not reported,
  // counted (stats().self_wakes).
  void PushReference(const audio::Frame& played);

  State state() const { return state_; }
  double time() const { return audio::FramesToSeconds(stats_.frames); }  // stream seconds
  // The stream time the events have reached (the VAD's delay behind time(), and no later than
  // the start of a keyword's run in progress, whose wake is stamped with the keyword's end, nor
  // than a speech end not yet reported): what another source of events on this stream (the
  // governor) stamps its events with, to keep them in order.
  double event_time() const;
  const PipelineStats& stats() const { return stats_; }
  const PipelineModels& models() const { return models_; }

 private:
  struct Settings {
    vad::VadConfig vad;
    kws::KwsConfig kws;
    EndpointConfig endpoint;
    int preroll_frames = 150;
    int partial_interval_frames = 50;  // 0: no partial transcripts
    double playback_sensitivity_shift = 0.0;  // added to each sensitivity during playback
  };
  Pipeline(std::unique_ptr<features::FrontEnd> front_end, PipelineModels models,
           const Settings& settings, EventSink* sink);

  void OnDecided(int64_t k, bool speech);
  void OnSpeechChange(int64_t k, bool speech);
  // The keyword stage (pipeline_keywords.cc).
  void MakeKeywordStage();
  void SetThreshold(size_t k);
  void StartKeyword(int64_t k, bool with_preroll);
  void RunKeyword(int64_t k);
  void FlushWakes();
  bool KeywordRunInProgress() const;
  void AfterSpeechCut(int64_t k);
  void Found(size_t keyword, kws::Wake wake);
  std::optional<kws::Wake> Verified(size_t keyword, kws::Wake wake);
  void OnWakes(int64_t k);
  // The rest (pipeline.cc).
  void RunCommand(int64_t k);
  void EmitPartial(int64_t k);
  void EndRequest(int64_t k);
  void AbandonRequest(double t);
  void EmitCancelled(double t);
  void EmitCommand(double t, const stt::SttResult& result);
  void AnnounceSpeech(bool speech, double t);
  void Enter(State next, int64_t k, double t);
  void BeginRequest(int64_t first, int64_t k);
  bool FeedStt(int64_t k);
  void ApplyPendingModels();
  void ResetStreamState();

  std::unique_ptr<features::FrontEnd> front_end_;
  PipelineModels models_;
  std::optional<PipelineModels> pending_models_;
  Settings settings_;
  EventSink* sink_;

  audio::FrameRing ring_;
  vad::VadSession vad_;
  std::vector<vad::VadFrame> decided_;
  std::unique_ptr<kws::KeywordSetSession> kws_;
  std::vector<kws::WakeDetector> detectors_;  // by keyword index
  // By keyword index: the verified confidence's threshold (Q15) of a keyword with a second stage,
  // -1 for the others.
  std::vector<int32_t> verify_thresholds_;
  std::vector<int16_t> verify_samples_;  // the audio a candidate is checked on
  struct KeywordWake {
    size_t keyword;
    kws::Wake wake;
  };
  std::vector<KeywordWake> wakes_;  // found on the hop being decided
  std::unique_ptr<stt::SttSession> stt_;
  Endpointer endpointer_;

  State state_ = State::kIdle;
  bool speech_ = false;        // the VAD's decision for the last decided frame
  bool speech_announced_ = false;  // speech_start sent, its speech_end not yet
  // In voice, the frame where speech first ended while a keyword's run over its threshold went on
  // (-1: none): the keyword stage runs until the runs end, and the keywords of runs begun before
  // it ended there at the latest. speech_end_: the frame of the speech end not yet reported then
  // (-1: none, or the speech came back).
  int64_t speech_cut_ = -1;
  int64_t speech_end_ = -1;
  int64_t frame_base_ = 0;     // stream index of the VAD's frame 0 (VAD restarts after a mute)
  int64_t request_start_ = 0;  // first frame fed to the STT
  uint64_t request_ = 0;       // the id of the request in progress, or of the last one
  int64_t request_fed_end_ = 0;  // the last frame fed to the request + 1
  RequestAudioSink* audio_sink_ = nullptr;
  bool playback_ = false;  // SetPlayback
  int echo_delay_frames_ = 0;
  std::unique_ptr<ReferenceSpotter> reference_spotter_;  // made by the first PushReference
  std::atomic<uint64_t> next_request_id_{0};  // the last id handed out
  int64_t decided_end_ = 0;    // the last decided frame + 1
  int64_t kws_next_ = -1;      // the next frame the keyword session expects (-1: none)
  std::string last_partial_;
  PipelineStats stats_;
};

}  // namespace earshot::statemachine
