// The keyword spotter: an int8 network (models/int8_mlp.h: dense layers, the hidden ones possibly
// convolutions over time) over the front end's log-mel of the context frames its file states (the
// bundled ones: 1.5 s), after an integer transform (optionally the front end's noise
// suppression, features/noise_suppression.h; then bands pooled in pairs, minus a running mean,
// 0.5 dB steps, clamped; the model file states the constants and whether it was trained on
// suppressed noise), scored at every 10 ms hop.
// Trained by tools/train/train_kws.py (and train_wakeword.py from text); kws_input.py there
// specifies the transform this file implements. KwsModel is immutable and shared; KwsSession is
// one stream's, over one model or several that share their trunk (SharesTrunk).
//
// The model file (models/model_file.h, kind "kws-mlp", log-mel features) holds:
//   context                int32[F]  the frames read, as offsets from the newest hop: ascending
//                                    within [-400, 0], the last 0 (the bundled: -152, -150, ..., 0)
//   kws_transform          int32[4]  {mean_shift, step_shift, min, max} (KwsTransform)
//   kws_noise_suppression  int32[1]  optional: 1 = the log-mel after NoiseSuppression; 0, absent:
//                                    the log-mel as it is
//   l0.*, l1.*, ..., sigmoid         the network (models/int8_mlp.h); leading convolutions over
//                                    the context frames are streamed (conv_stream.h)
//   kws_phrase             int32[N]  optional: the phrase spotted, one Unicode code point per
//                                    element, 1 <= N <= 64, printable, no space first or last
//                                    (phrase.h): "hey snowboy". The keyword's default name.
//   kws_default_threshold  int32[1]  optional: the score threshold at sensitivity 0.5 in Q15
//                                    (1 .. 32767, 1.0 = 32768); absent: 26214 (0.8)
//   kws_verify             int32[2]  optional, with kws_verify_phones: the keyword is checked by
//                                    the second stage (models/pocketsphinx/keyphrase_verifier.h):
//                                    {the first stage's threshold, whatever the sensitivity; the
//                                    verified confidence's threshold at sensitivity 0.5}, Q15
//   kws_verify_phones      int32[N]  the phrase's phones in the speech-to-text acoustic model's
//                                    phone set, one ASCII code point each: "S N OW B OY"
//   kws_verify_narrowband  int32[1]  optional, with kws_verify: what the verified confidence loses,
//                                    Q15 in [0, 16384], on a window whose band above 4 kHz is
//                                    empty (an 8 kHz codec's or a band-limited microphone's audio,
//                                    which the second stage floors); absent: 0. The trainer
//                                    calibrates it on real negatives, full band against low-passed
//   kws_verify_run         int32[2]  optional, with kws_verify: {what each hop of the spotter's run
//                                    adds to the verifier's score, what is taken off it}, both in
//                                    thousandths of the score's units (log-likelihood per frame);
//                                    weight in [0, 5000], offset in [-100000, 100000]; absent:
//                                    {400, 0}. The trainer chooses the weight on synthetic
//                                    renditions of the phrase against real negatives, and the
//                                    offset that keeps the real negatives' highest confidences
//                                    where the default weight put them (train_wakeword.py)
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "audio/format.h"
#include "base/result.h"
#include "features/front_end_config.h"
#include "features/noise_suppression.h"
#include "models/context_stack.h"
#include "models/int8_mlp.h"
#include "models/kws/conv_stream.h"

namespace earshot::kws {

inline constexpr int32_t kDefaultThresholdQ15 = 26214;  // 0.8 in Q15

// A keyword's second stage, as its model file states it (kws_verify, kws_verify_phones).
struct KwsVerify {
  std::string phones;                   // "S N OW B OY": upper-case phones, one space between
  int32_t candidate_threshold_q15 = 0;  // the first stage's threshold, whatever the sensitivity
  int32_t default_threshold_q15 = 0;    // the confidence's threshold at sensitivity 0.5
  int32_t narrowband_penalty_q15 = 0;   // kws_verify_narrowband
  // kws_verify_run: absent, the verifier's own terms (pocketsphinx::ConfidenceTerms) hold.
  std::optional<int32_t> run_weight_milli;  // kws_verify_run[0]
  int32_t run_offset_milli = 0;             // kws_verify_run[1]
};

struct KwsTransform {
  int32_t mean_shift;  // running band mean: mean += (pooled - mean) >> mean_shift
  int32_t step_shift;  // input = clamp((pooled - mean) >> step_shift, min, max)
  int32_t min, max;
  bool operator==(const KwsTransform&) const = default;
};

class KwsModel {
 public:
  static Result<std::shared_ptr<const KwsModel>> Load(const std::string& path,
                                                      const features::FrontEndConfig& front_end);
  int pooled_bands() const { return pooled_bands_; }
  std::span<const int32_t> context() const { return context_; }
  const KwsTransform& transform() const { return transform_; }
  bool noise_suppression() const { return noise_suppression_; }
  int16_t log_floor_db_q8() const { return log_floor_db_q8_; }
  const models::Int8Mlp& mlp() const { return mlp_; }
  // The phrase (kws_phrase) in UTF-8; empty when the file states none.
  const std::string& phrase() const { return phrase_; }
  // The threshold of sensitivity 0.5, Q15 (kws_default_threshold, else kDefaultThresholdQ15).
  int32_t default_threshold_q15() const { return default_threshold_q15_; }
  // The second stage the file asks for (kws_verify); none for a keyword the first stage decides.
  const std::optional<KwsVerify>& verify() const { return verify_; }
  // Leading layers streamed per hop (conv_stream.h; 0: the whole network runs on every hop).
  int trunk_layers() const { return trunk_layers_; }

 private:
  KwsModel() = default;
  models::Int8Mlp mlp_;
  std::vector<int32_t> context_;  // ascending offsets, the last one 0 (no lookahead)
  KwsTransform transform_{};
  int pooled_bands_ = 0;
  bool noise_suppression_ = false;
  int16_t log_floor_db_q8_ = 0;  // the front end's floor, which NoiseSuppression keeps
  std::string phrase_;
  int32_t default_threshold_q15_ = kDefaultThresholdQ15;
  std::optional<KwsVerify> verify_;
  int trunk_layers_ = 0;
};

// Whether two models compute the same trunk on the same log-mel: the same context, transform,
// noise suppression and front end, and streamed leading layers (at least one) of the same
// geometry and bytes (weights, biases, requantisation). Their remaining layers may differ.
bool SharesTrunk(const KwsModel& a, const KwsModel& b);

// A keyword's time after a wake in which it gives no other, where kws.refractory_ms is unset.
inline constexpr int kDefaultRefractoryMs = 1000;

// Settings of the detection (detector.h) shared by every keyword, with one keyword's threshold
// and refractory period; smoothing is the session's.
struct KwsConfig {
  int32_t threshold_q15 = kDefaultThresholdQ15;  // Q15; 32768: never (scores are at most 32767)
  int refractory_frames = audio::MsToFrames(kDefaultRefractoryMs);
  // A wake at the latest this long after the score crossed; the keywords' run weights were
  // calibrated on it (kws_verify), so it is no option.
  int max_hold_frames = 50;
  // A dip under the threshold this long does not end the run (kws.gap_ms binds it and holds its
  // default; 0: any dip ends it).
  int gap_frames = 0;
  // The score is the mean of the network's last smooth_frames scores (1: none, the raw scores the
  // tests compare; kws.smooth_ms binds it, by default 50 ms: 5 hops).
  int smooth_frames = 1;
  // Explains the first impossible setting, with its unit. (kws.gap_ms and kws.smooth_ms bind
  // it: options/stage_options.h; the keyword's own fields are keywords.h's.)
  Status Validate() const;
};

struct Wake {
  int64_t frame;  // the hop where the keyword ended
  uint16_t score_q15;
  int run_hops = 0;  // the detector's run: its hops at or over the threshold (dips not counted)
  int64_t run_start = 0;  // the run's first hop
};

class KwsSession {
 public:
  // One model; only config.smooth_frames matters to a session (detection is detector.h's).
  KwsSession(std::shared_ptr<const KwsModel> model, const KwsConfig& config);
  // Models that all share the first one's trunk (SharesTrunk): the transform, the context and
  // the trunk run once per hop, then each model's own layers.
  KwsSession(std::vector<std::shared_ptr<const KwsModel>> models, const KwsConfig& config);

  // Feeds one frame's log-mel (dB Q8); returns that hop's score (Q15) of the first model: the
  // mean of the network's scores over the last smooth_frames hops (posterior smoothing),
  // rounded. scores() holds every model's.
  uint16_t Process(std::span<const int16_t> logmel_db_q8);
  std::span<const uint16_t> scores() const { return scores_; }
  uint16_t last_network_score(size_t model = 0) const;  // the newest hop's, before smoothing
  void Reset();
  std::span<const int8_t> last_inputs() const { return stack_.Newest(); }

 private:
  // One model's own layers after the trunk, and its smoothing.
  struct Head {
    std::shared_ptr<const KwsModel> model;
    models::Int8Mlp::Scratch scratch;
    std::vector<uint16_t> recent_q15;  // the network's last smooth_frames scores, a ring
    int32_t recent_sum_q15 = 0;
  };
  uint16_t Smoothed(Head& head, int64_t hop, uint16_t network_q15);
  const KwsModel& trunk() const { return *heads_.front().model; }  // the first model's

  std::vector<Head> heads_;
  std::vector<uint16_t> scores_;
  std::vector<int32_t> mean_q8_;
  bool primed_ = false;
  std::optional<features::NoiseSuppression> noise_;  // if the model says so
  std::vector<int16_t> denoised_q8_;                 // this hop's log-mel after it
  models::ContextStack stack_;
  std::optional<ConvStream> stream_;  // leading convolutions are streamed (conv_stream.h)
};

}  // namespace earshot::kws
