#include "features/front_end.h"

#include <algorithm>
#include <numeric>

#include "base/q15.h"

namespace earshot::features {

Result<std::unique_ptr<FrontEnd>> FrontEnd::Create(const FrontEndConfig& config) {
  Status s = config.Validate();
  if (!s.ok()) return s.error();
  return std::unique_ptr<FrontEnd>(new FrontEnd(config));
}

FrontEnd::FrontEnd(const FrontEndConfig& c)
    : config_(c),
      emphasis_(c.dc_pole_q15, c.preemphasis_q15, c.dc_removal),
      fft_(c.fft_size),
      window_(c.window_samples(), fft_.max_input_bits()),
      mel_(c.mel_bands, c.mel_low_hz, c.mel_high_hz, c.fft_size, c.sample_rate_hz, c.mel_scale),
      log_(
          [this] {
            const auto& w = window_.weights_q15();
            return std::accumulate(w.begin(), w.end(), 0.0) / kQ15One;
          }(),
          c.log_reference,
          MelBandGains(c.mel_bands, c.mel_low_hz, c.mel_high_hz, c.mel_scale, c.mel_norm),
          static_cast<int16_t>(c.log_floor_db * 256)),
      dct_(c.mel_bands, c.mfcc_count, c.lifter),
      history_q8_(c.window_samples()),
      fft_in_(c.fft_size),
      spectrum_(c.fft_size / 2 + 1),
      mel_energy_(c.mel_bands),
      logmel_db_q8_(c.mel_bands, static_cast<int16_t>(c.log_floor_db * 256)),
      mfcc_q8_(c.mfcc_count) {
  if (c.noise_suppression) noise_.emplace(c.mel_bands, log_.floor_db_q8());
  if (c.mean_norm == MeanNorm::kRunning) mean_norm_.emplace(c.mfcc_count, c.mean_norm_shift);
}

void FrontEnd::Process(std::span<const int16_t> hop) {
  // Slide the history by one hop and append the new, pre-emphasised samples.
  const auto keep = static_cast<ptrdiff_t>(history_q8_.size() - hop.size());
  std::copy(history_q8_.end() - keep, history_q8_.end(), history_q8_.begin());
  emphasis_.Process(hop, std::span<int32_t>(history_q8_).subspan(static_cast<size_t>(keep)));

  exponent_ = window_.Process(history_q8_, fft_in_);
  fft_.Process(fft_in_, spectrum_);
  mel_.Process(spectrum_, mel_energy_);
  log_.Process(mel_energy_, exponent_, logmel_db_q8_);
  if (noise_) noise_->Process(logmel_db_q8_);
  if (mean_norm_) {  // the running mean needs every frame's cepstra
    dct_.Process(logmel_db_q8_, mfcc_q8_);
    mean_norm_->Process(mfcc_q8_);
  } else {
    mfcc_current_ = false;
  }
}

std::span<const int32_t> FrontEnd::mfcc_q8() const {
  if (!mfcc_current_) {
    dct_.Process(logmel_db_q8_, mfcc_q8_);
    mfcc_current_ = true;
  }
  return mfcc_q8_;
}

void FrontEnd::Reset() {
  emphasis_.Reset();
  std::fill(history_q8_.begin(), history_q8_.end(), 0);
  if (noise_) noise_->Reset();
  if (mean_norm_) mean_norm_->Reset();
  exponent_ = Window::kSilent;
}

}  // namespace earshot::features
