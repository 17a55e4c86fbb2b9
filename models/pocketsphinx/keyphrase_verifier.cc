#include "models/pocketsphinx/keyphrase_verifier.h"

#include <pocketsphinx.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include "audio/format.h"
#include "base/read_file.h"
#include "models/pocketsphinx/acoustic_model_check.h"
#include "models/pocketsphinx/pocketsphinx_init.h"

namespace earshot::pocketsphinx {
namespace {

std::string SearchName(size_t k) { return "keyword" + std::to_string(k); }

// Keyword k's phrase as one dictionary word of its phones, and its keyphrase search.
Status AddKeyword(ps_decoder_t* decoder, size_t k, const std::string& phones) {
  const std::string word = "earshot_keyword_" + std::to_string(k);
  if (ps_add_word(decoder, word.c_str(), phones.c_str(), TRUE) < 0) {
    return Error{"keyword " + std::to_string(k + 1) + ": phones '" + phones +
                 "' not all in the acoustic model: " + TakePocketsphinxErrors()};
  }
  if (ps_set_keyphrase(decoder, SearchName(k).c_str(), word.c_str()) < 0) {
    return Error{"keyword " + std::to_string(k + 1) + ": no keyphrase search for '" + phones +
                 "': " + TakePocketsphinxErrors()};
  }
  return OkStatus();
}

// A linear-phase FIR for 16 kHz audio: a Hamming-windowed sinc of `taps` (odd) taps, -6 dB at
// `cutoff_hz`, low-pass or high-pass.
std::vector<double> WindowedSinc(int taps, double cutoff_hz, bool high_pass) {
  const double cutoff = cutoff_hz / 16000.0;  // cycles per sample
  std::vector<double> out(static_cast<size_t>(taps));
  for (int t = 0; t < taps; ++t) {
    const double m = t - (taps - 1) / 2.0;
    const double low_pass =
        m == 0 ? 2 * cutoff : std::sin(2 * std::numbers::pi * cutoff * m) / (std::numbers::pi * m);
    const double window = 0.54 - 0.46 * std::cos(2 * std::numbers::pi * t / (taps - 1));
    out[static_cast<size_t>(t)] = (high_pass ? (m == 0 ? 1.0 : 0.0) - low_pass : low_pass) * window;
  }
  return out;
}

// The high-pass at kHighBandFloorHz, computed once: 63 taps, flat from 4.3 kHz, 54 dB down and
// more below 3.4 kHz.
const std::vector<double>& HighPass() {
  static const std::vector<double> taps = WindowedSinc(63, kHighBandFloorHz, true);
  return taps;
}

// The low-pass at kTelephoneBandHz, computed once: 255 taps, 50 dB down and more from 3.65 kHz.
const std::vector<double>& TelephoneLowPass() {
  static const std::vector<double> taps = WindowedSinc(255, kTelephoneBandHz, false);
  return taps;
}

// The high-passed signal at x[i + taps.size() / 2], from x[i .. i + taps.size()) (taps: HighPass).
template <typename T>
double HighPassedAt(const std::vector<double>& taps, std::span<const T> x, size_t i) {
  double y = 0;
  for (size_t t = 0; t < taps.size(); ++t) y += taps[t] * x[i + t];
  return y;
}

// The floor of the longest window (kVerifyFramesBefore + kVerifyFramesAfter + 1 frames), made
// once: white noise of kHighBandFloorRms from a fixed seed, high-passed (HighPass).
const std::vector<double>& Floor() {
  static const std::vector<double> floor = [] {
    constexpr unsigned kSeed = 150;  // any fixed seed
    constexpr size_t kLength =
        (kVerifyFramesBefore + kVerifyFramesAfter + 1) * audio::kFrameSamples;
    std::mt19937 noise_source(kSeed);
    std::normal_distribution<double> white(0.0, kHighBandFloorRms);
    const std::vector<double>& taps = HighPass();
    std::vector<double> noise(kLength + taps.size());
    for (double& x : noise) x = white(noise_source);
    std::vector<double> high(kLength);
    for (size_t i = 0; i < kLength; ++i) {
      high[i] = HighPassedAt(taps, std::span<const double>(noise), i);
    }
    return high;
  }();
  return floor;
}

size_t PhoneCount(const std::string& phones) {
  return static_cast<size_t>(std::count(phones.begin(), phones.end(), ' ')) + 1;
}

}  // namespace

bool HighBandIsEmpty(std::span<const int16_t> samples) {
  const std::vector<double>& taps = HighPass();
  if (samples.size() < taps.size()) return false;
  double total = 0, high = 0;
  for (size_t i = 0; i + taps.size() <= samples.size(); ++i) {
    const double y = HighPassedAt(taps, samples, i);
    const double x = samples[i + taps.size() / 2];
    high += y * y;
    total += x * x;
  }
  return total > 0 && high < kEmptyBandRatio * total;
}

void AddHighBandFloor(std::span<int16_t> samples) {
  const std::vector<double>& floor = Floor();
  for (size_t i = 0; i < samples.size(); ++i) {
    const double x = samples[i] + floor[i % floor.size()];
    samples[i] = static_cast<int16_t>(std::clamp(std::lround(x), -32768L, 32767L));
  }
}

Result<std::shared_ptr<const KeyphraseVerifier>> KeyphraseVerifier::Load(
    const std::string& acoustic_model, const std::string& dictionary,
    const std::vector<std::string>& phones, std::vector<ConfidenceTerms> terms) {
  terms.resize(phones.size());
  if (Status files = CheckAcousticModel(acoustic_model); !files.ok()) return files.error();
  Result<uint64_t> size = RegularFileSize(dictionary, "a dictionary");
  if (!size.ok()) return size.error();
  // Every detection kept (the threshold is ours, after it); each candidate's audio normalised by
  // its own cepstral mean, as a short command is; pocketsphinx's silence removal off, as for the
  // speech-to-text (its frames must stay the audio's).
  Result<ps_decoder_t*> decoder = MakePocketsphinxDecoder(
      {"-hmm", acoustic_model, "-dict", dictionary, "-logfn", "/dev/null", "-kws_threshold",
       "1e-200", "-cmn", "batch", "-remove_silence", "no"},
      acoustic_model + " / " + dictionary);
  if (!decoder.ok()) return decoder.error();
  std::shared_ptr<KeyphraseVerifier> verifier(
      new KeyphraseVerifier(*decoder, phones, std::move(terms), acoustic_model, dictionary));
  if (const std::string logged = TakePocketsphinxErrors(); !logged.empty()) {
    return Error{"pocketsphinx could not load " + acoustic_model + " / " + dictionary + ": " +
                 logged};
  }
  for (size_t k = 0; k < phones.size(); ++k) {
    if (phones[k].empty()) continue;
    if (Status added = AddKeyword(*decoder, k, phones[k]); !added.ok()) return added.error();
  }
  return std::shared_ptr<const KeyphraseVerifier>(std::move(verifier));
}

KeyphraseVerifier::~KeyphraseVerifier() { ps_free(decoder_); }

std::optional<double> KeyphraseVerifier::Score(size_t k, std::span<const int16_t> samples) const {
  return ScoreWindow(k, samples).score;
}

void TelephoneBand(std::span<const int16_t> samples, std::vector<int16_t>& out) {
  const std::vector<double>& taps = TelephoneLowPass();  // symmetric
  const size_t half = taps.size() / 2;
  out.resize(samples.size());
  for (size_t i = 0; i < samples.size(); ++i) {
    const size_t first = i < half ? 0 : i - half;
    const size_t last = std::min(samples.size() - 1, i + half);
    double y = 0;
    for (size_t j = first; j <= last; ++j) y += taps[j + half - i] * samples[j];
    out[i] = static_cast<int16_t>(std::clamp(std::lround(y), -32768L, 32767L));
  }
}

std::optional<double> KeyphraseVerifier::Decode(size_t k, std::span<const int16_t> audio) const {
  if (ps_set_search(decoder_, SearchName(k).c_str()) < 0 || ps_start_utt(decoder_) < 0) {
    return std::nullopt;
  }
  ps_process_raw(decoder_, audio.data(), audio.size(), FALSE, TRUE);
  ps_end_utt(decoder_);
  const int min_frames = 3 * static_cast<int>(PhoneCount(phones_[k]));
  std::optional<double> best;
  for (ps_seg_t* seg = ps_seg_iter(decoder_); seg != nullptr; seg = ps_seg_next(seg)) {
    int first = 0, last = 0;
    ps_seg_frames(seg, &first, &last);
    int32 acoustic = 0, language = 0, backoff = 0;
    const int32 ratio = ps_seg_prob(seg, &acoustic, &language, &backoff);
    const int frames = last - first + 1;
    if (frames < min_frames) continue;
    const double per_frame = static_cast<double>(ratio) / frames;
    if (!best || per_frame > *best) best = per_frame;
  }
  return best;
}

Verdict KeyphraseVerifier::ScoreWindow(size_t k, std::span<const int16_t> samples) const {
  if (!checks(k) || samples.empty()) return {};
  std::lock_guard<std::mutex> lock(mutex_);
  // One pocketsphinx stream for every candidate: its noise estimate (-remove_noise) carries over
  // from the candidates before, converged on the audio's own noise. A fresh stream per candidate
  // made every window's score its own but missed more (docs/research/wakeword.md).
  if (HighBandIsEmpty(samples)) {
    floored_.assign(samples.begin(), samples.end());
    AddHighBandFloor(floored_);
    return {Decode(k, floored_), true, 0.0};
  }
  const std::optional<double> full = Decode(k, samples);
  TelephoneBand(samples, floored_);
  AddHighBandFloor(floored_);
  // The better of the two (no detection ranks lowest; a tie keeps the window as it is).
  return {std::max(full, Decode(k, floored_)), false, 0.0};
}

Verdict KeyphraseVerifier::Check(size_t k, int64_t frame, int run_hops,
                                 const audio::FrameRing& ring,
                                 std::vector<int16_t>& scratch) const {
  scratch.clear();
  const int64_t first = std::max(ring.begin(), frame - kVerifyFramesBefore);
  const int64_t end = std::min(ring.end(), frame + kVerifyFramesAfter + 1);
  for (int64_t j = first; j < end; ++j) {
    const std::span<const int16_t> samples = ring.Samples(j);
    scratch.insert(scratch.end(), samples.begin(), samples.end());
  }
  Verdict verdict = ScoreWindow(k, scratch);
  if (!checks(k)) return verdict;
  verdict.confidence = VerifiedConfidence(run_hops, verdict.score, terms_[k]);
  if (verdict.narrowband) {
    verdict.confidence = std::max(0.0, verdict.confidence - terms_[k].narrowband_penalty);
  }
  return verdict;
}

double VerifiedConfidence(int run_hops, std::optional<double> score, const ConfidenceTerms& terms) {
  if (!score) return 0.0;
  const double evidence = *score + terms.run_weight * run_hops - terms.run_offset;
  return std::clamp(1.0 + evidence / 100.0, 0.0, 1.0);
}

}  // namespace earshot::pocketsphinx
