// KeyphraseVerifier: the second stage of the keywords trained from text. The int8 keyword spotter
// (models/kws) learnt its phrase from synthetic voices; on people it needs a low threshold to hear
// them, and then wakes on other speech. Each time it fires there (a candidate), this checks the
// last 1.8 s of audio with pocketsphinx's acoustic model, trained on many hours of real speakers:
// its keyphrase search aligns the phrase's phones against a free loop of the model's phones, and
// the candidate's score is the best log-likelihood ratio per frame of the phrase's path over the
// loop's (0 at best; pocketsphinx's log units), among the phrase's detections that give each phone
// at least 3 frames (the better of the window as it is and in the telephone band, below).
// VerifiedConfidence joins it with how long the spotter held the phrase.
// Measured on the shared wake-word protocol in docs/research/wakeword.md.
// The decoder is one, behind a mutex: Score may be called from any thread, one at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "audio/ring_buffer.h"
#include "base/result.h"

typedef struct ps_decoder_s ps_decoder_t;

namespace earshot::pocketsphinx {

// The audio a candidate is checked on, in 10 ms frames around the spotter's last hop over its
// threshold: the phrase ends about there, and may have begun 1.5 s before.
inline constexpr int kVerifyFramesBefore = 150;
inline constexpr int kVerifyFramesAfter = 30;

// The acoustic model learnt from full-band speech (its filters reach 6.8 kHz) and never met an
// empty band: from an 8 kHz codec or a microphone band-limited near 3.4 kHz, pocketsphinx's
// cepstra of the silence above are far from any it knew. A window whose band above 4 kHz holds
// less than kEmptyBandRatio of its energy gets a quiet floor there, as a quiet microphone's own
// noise: white noise of this RMS (int16 units, about -70 dBFS), high-passed at 4 kHz. Full-band
// windows (speech has a few percent of its energy above 4 kHz, noise more) are left as they are.
inline constexpr double kHighBandFloorRms = 10.0;
inline constexpr double kHighBandFloorHz = 4000.0;
inline constexpr double kEmptyBandRatio = 1e-4;  // -40 dB

// Speech is weak above 3.4 kHz and noise is not: at 10 dB SNR, clatter and water there (bursts that
// pocketsphinx's noise estimate cannot follow) drown the phrase's upper band and the acoustic model
// aligns it poorly, where the band below still holds it. A full-band window is therefore checked
// twice, as it is and in the telephone band (low-passed at kTelephoneBandHz, with the floor above),
// and keeps the better score: on the shared protocol's windows, with each phrase's run weight
// fixed, fewer keywords missed at 0 FA and at the default on the three phrases measured, and no
// more at 1 FA/h (docs/research/wakeword.md).
inline constexpr double kTelephoneBandHz = 3400.0;

// Whether `samples` (16 kHz) have an empty band above kHighBandFloorHz (see above).
bool HighBandIsEmpty(std::span<const int16_t> samples);
// `samples` with the floor above added: the same noise for every call, so a window's score is its
// own (made once for the longest window, kVerifyFramesBefore + kVerifyFramesAfter + 1 frames, and
// repeated after it).
void AddHighBandFloor(std::span<int16_t> samples);
// `samples` (16 kHz) low-passed at kTelephoneBandHz into `out` (their length; a linear-phase FIR
// of 255 taps, the audio taken as silent outside the span).
void TelephoneBand(std::span<const int16_t> samples, std::vector<int16_t>& out);

// How keyword k's verified confidence is made (its model's kws_verify_run and
// kws_verify_narrowband; the defaults: a model without them, the one owner of these numbers: the
// trainers' tools/train/kws_constants.py is held to them by train_constants_test).
struct ConfidenceTerms {
  double run_weight = 0.4;          // added to the score per hop of the spotter's run
  double run_offset = 0.0;          // taken off the score
  double narrowband_penalty = 0.0;  // taken off the confidence of a window with an empty high band
};

// A candidate as checked: the verifier's score (none: no detection of the phrase long enough),
// whether its window's high band was empty (and got the floor), and the confidence.
struct Verdict {
  std::optional<double> score;
  bool narrowband = false;
  double confidence = 0.0;
};

class KeyphraseVerifier {
 public:
  // `phones[k]`: keyword k's phones ("S N OW B OY"), or "" for a keyword that is not checked;
  // `terms[k]`: how its confidence is made (the defaults where the vector is shorter).
  // `acoustic_model` and `dictionary` as stt.acoustic_model and stt.dictionary. Errors name the
  // files, or the keyword and the phone the acoustic model does not have.
  static Result<std::shared_ptr<const KeyphraseVerifier>> Load(
      const std::string& acoustic_model, const std::string& dictionary,
      const std::vector<std::string>& phones, std::vector<ConfidenceTerms> terms = {});
  ~KeyphraseVerifier();
  KeyphraseVerifier(const KeyphraseVerifier&) = delete;
  KeyphraseVerifier& operator=(const KeyphraseVerifier&) = delete;

  // Keyword k's score in `samples` (16 kHz mono), or none when pocketsphinx finds no detection of
  // the phrase there long enough to count (or k is not checked).
  std::optional<double> Score(size_t k, std::span<const int16_t> samples) const;
  // Keyword k's candidate whose last hop over the spotter's threshold is stream frame `frame`,
  // its run `run_hops` hops over that threshold, checked on what `ring` holds of frames
  // [frame - kVerifyFramesBefore, frame + kVerifyFramesAfter], copied into `scratch` (which keeps
  // its capacity from call to call): its confidence is VerifiedConfidence's, less the keyword's
  // narrowband penalty (at least 0) where the window got the floor.
  Verdict Check(size_t k, int64_t frame, int run_hops, const audio::FrameRing& ring,
                std::vector<int16_t>& scratch) const;
  double Confidence(size_t k, int64_t frame, int run_hops, const audio::FrameRing& ring,
                    std::vector<int16_t>& scratch) const {
    return Check(k, frame, run_hops, ring, scratch).confidence;
  }
  bool checks(size_t k) const { return k < phones_.size() && !phones_[k].empty(); }
  // The files it was loaded from (Load's arguments).
  const std::string& acoustic_model() const { return acoustic_model_; }
  const std::string& dictionary() const { return dictionary_; }

 private:
  KeyphraseVerifier(ps_decoder_t* decoder, std::vector<std::string> phones,
                    std::vector<ConfidenceTerms> terms, std::string acoustic_model,
                    std::string dictionary)
      : decoder_(decoder),
        phones_(std::move(phones)),
        terms_(std::move(terms)),
        acoustic_model_(std::move(acoustic_model)),
        dictionary_(std::move(dictionary)) {}
  // The window's Verdict but its confidence (takes mutex_).
  Verdict ScoreWindow(size_t k, std::span<const int16_t> samples) const;
  // Keyword k's best detection in `audio`, per frame (Score); the caller holds mutex_.
  std::optional<double> Decode(size_t k, std::span<const int16_t> audio) const;
  ps_decoder_t* decoder_;
  std::vector<std::string> phones_;
  std::vector<ConfidenceTerms> terms_;  // as long as phones_
  std::string acoustic_model_;
  std::string dictionary_;
  mutable std::mutex mutex_;
  // The window with the floor (AddHighBandFloor), as it is or in the telephone band; under mutex_.
  mutable std::vector<int16_t> floored_;
};

// A checked candidate's confidence in [0, 1] from the spotter's run (its hops over the candidate
// threshold, at most the detector's hold, KwsConfig::max_hold_frames) and the verifier's score: 1 +
// (score + run_weight * run_hops - run_offset) / 100, clamped; 0 without a score. A keyword holds
// the spotter over its threshold for most of the hold (median 35-45 of 50 hops on the protocol's
// keywords), the speech that fires it by mistake for a few hops (7-11): on the protocol the run's
// length parts them better than the spotter's peak score did; how much it should weigh differs
// from phrase to phrase, and the trainer chooses it (docs/research/wakeword.md).
double VerifiedConfidence(int run_hops, std::optional<double> score,
                          const ConfidenceTerms& terms = {});

}  // namespace earshot::pocketsphinx
