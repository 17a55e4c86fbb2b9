// The voice-activity detector: an int8 MLP (models/int8_mlp.h) over the front end's log-mel frames,
// after an integer input transform (per-band noise floor -> SNR in 0.5 dB steps, and the frame's
// level), read at a few context offsets around the scored frame. Trained by
// tools/train/train_vad.py; vad_input.py there specifies the transform this file implements.
//
// VadModel is immutable and shared; VadSession holds one stream's state. Integer arithmetic only
// per frame, and no allocation after construction.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "features/front_end_config.h"
#include "models/context_stack.h"
#include "models/int8_mlp.h"

namespace earshot::vad {

// The input transform's constants, from the model file (tensor "input_transform").
struct InputTransform {
  int32_t floor_down_shift;  // floor += d >> this when the band falls below it
  int32_t floor_up_max_q8;   // rise per frame at most this >> floor_up_shift (Q8 dB)
  int32_t floor_up_shift;
  int32_t snr_max_q8;        // SNR clamp, Q8 dB
  int32_t snr_shift;         // SNR input = clamp(...) >> this
  int32_t energy_mult;       // mean band level = sum * mult >> energy_shift (= sum / bands)
  int32_t energy_shift;
  int32_t energy_offset;     // level input = clamp((mean >> 8) + offset, 0, energy_max), 1 dB units
  int32_t energy_max;
};

class VadModel {
 public:
  static Result<std::shared_ptr<const VadModel>> Load(const std::string& path,
                                                      const features::FrontEndConfig& front_end);

  int bands() const { return bands_; }
  int width() const { return bands_ + 1; }  // inputs per frame
  std::span<const int32_t> context() const { return context_; }
  int lookahead() const { return context_.back(); }
  int lookback() const { return std::max(0, -context_.front()); }  // frames before the scored one
  const InputTransform& transform() const { return transform_; }
  const models::Int8Mlp& mlp() const { return mlp_; }

 private:
  VadModel(models::Int8Mlp mlp, std::vector<int32_t> context, InputTransform transform, int bands)
      : mlp_(std::move(mlp)), context_(std::move(context)), transform_(transform), bands_(bands) {}
  models::Int8Mlp mlp_;
  std::vector<int32_t> context_;  // ascending frame offsets
  InputTransform transform_;
  int bands_;
};

// Bound from the options table's [vad] section (options/stage_options.h), which holds the defaults;
// a value-initialised one is a blank to fill in (raw scores, and every frame voice).
struct VadConfig {
  int smooth_half_frames = 0;  // scores are averaged over frames k-h .. k+h (0: raw scores)
  int32_t threshold_q15 = 0;   // score >= threshold is voice
  int min_speech_frames = 0;   // a voice run shorter than this is not speech
  int hangover_frames = 0;     // speech continues this long after the last voice frame
  // Explains the first impossible setting, with its unit.
  Status Validate() const;
};

struct VadFrame {
  int64_t index;       // 10 ms frame of the stream
  uint16_t score_q15;  // P(speech) in Q15
  bool speech;         // the decision, after min_speech and hangover
};

// A centred moving average of the scores over 2h + 1 frames (fewer at the stream's edges), in
// integers. It lags the input by h frames.
class ScoreSmoother {
 public:
  explicit ScoreSmoother(int half_width);
  void Push(VadFrame frame, std::vector<VadFrame>& out);
  void Flush(std::vector<VadFrame>& out);
  void Reset();

 private:
  void Emit(std::vector<VadFrame>& out);  // the frame at the window's centre
  int half_;
  std::vector<VadFrame> window_;  // ring of the last 2h + 1 raw frames
  int64_t pushed_ = 0;            // raw frames pushed
  int64_t emitted_ = 0;           // smoothed frames emitted
};

// The speech/non-speech decision over per-frame scores: speech starts once min_speech_frames voice
// frames come in a row (all of them become speech) and ends after hangover_frames without voice.
// Frames wait until that is settled, so the output lags the input by min_speech_frames.
class SpeechDecision {
 public:
  explicit SpeechDecision(const VadConfig& config);
  void Push(VadFrame frame, std::vector<VadFrame>& out);
  void Flush(std::vector<VadFrame>& out);
  void Reset();

 private:
  VadConfig config_;
  std::vector<VadFrame> pending_;  // at most min_speech_frames + 1
  bool in_speech_ = false;
  int off_run_ = 0;
  int on_run_ = 0;
};

class VadSession {
 public:
  // `allow_simd`: the input transform's NEON loop on aarch64 (same integers; false forces the
  // plain loop).
  VadSession(std::shared_ptr<const VadModel> model, const VadConfig& config, bool allow_simd = true);

  // Feeds the next frame's log-mel (dB Q8). Frames whose decision is final are appended to `out`,
  // in order, delayed by the model's lookahead + smooth_half_frames + min_speech_frames.
  void Process(std::span<const int16_t> logmel_db_q8, std::vector<VadFrame>& out);
  // The end of the stream: scores and decides the frames still pending.
  void Flush(std::vector<VadFrame>& out);
  void Reset();

  // The per-frame inputs of the newest frame (for tests).
  std::span<const int8_t> last_inputs() const { return stack_.Newest(); }

 private:
  void Transform(std::span<const int16_t> logmel, std::span<int8_t> inputs);
  void ScoreFrame(std::vector<VadFrame>& out);  // scores the frame `lookahead` before the newest

  std::shared_ptr<const VadModel> model_;
  ScoreSmoother smoother_;
  SpeechDecision decision_;
  std::vector<VadFrame> smoothed_;  // scratch between the smoother and the decision
  models::Int8Mlp::Scratch scratch_;
  std::vector<int32_t> floor_q8_;
  bool primed_ = false;
  models::ContextStack stack_;
  bool simd_;
};

}  // namespace earshot::vad
