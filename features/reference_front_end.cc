#include "features/reference_front_end.h"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "base/q15.h"
#include "features/dct.h"
#include "features/mel_filterbank.h"

namespace earshot::features {

struct ReferenceFrontEnd::Plan {
  float* in = nullptr;
  fftwf_complex* out = nullptr;
  fftwf_plan plan = nullptr;
  Plan(int n, FftPlanning planning) {
    in = fftwf_alloc_real(n);
    out = fftwf_alloc_complex(n / 2 + 1);
    plan = fftwf_plan_dft_r2c_1d(n, in, out,
                                 planning == FftPlanning::kMeasure ? FFTW_MEASURE : FFTW_ESTIMATE);
  }
  ~Plan() {
    fftwf_destroy_plan(plan);
    fftwf_free(in);
    fftwf_free(out);
  }
};

Result<std::unique_ptr<ReferenceFrontEnd>> ReferenceFrontEnd::Create(const FrontEndConfig& config,
                                                                     FftPlanning planning) {
  Status s = config.Validate();
  if (!s.ok()) return s.error();
  return std::unique_ptr<ReferenceFrontEnd>(new ReferenceFrontEnd(config, planning));
}

ReferenceFrontEnd::ReferenceFrontEnd(const FrontEndConfig& c, FftPlanning planning)
    : config_(c),
      plan_(std::make_unique<Plan>(c.fft_size, planning)),
      dc_pole_(static_cast<float>(FromQ15(c.dc_pole_q15))),
      preemphasis_(static_cast<float>(FromQ15(c.preemphasis_q15))),
      history_(c.window_samples()),
      window_(c.window_samples()),
      power_(c.fft_size / 2 + 1),
      logmel_db_(c.mel_bands, static_cast<float>(c.log_floor_db)),
      mfcc_(c.mfcc_count),
      mean_(c.mfcc_count) {
  const int length = c.window_samples();
  double window_sum = 0;
  for (int n = 0; n < length; ++n) {
    window_[n] = static_cast<float>(0.5 - 0.5 * std::cos(2 * std::numbers::pi * n / length));
    window_sum += window_[n];
  }
  // 0 dB: a full-scale sine at a bin centre, or a power of 1 in int16 units.
  log10_reference_ = c.log_reference == LogReference::kFullScale
                         ? static_cast<float>(2.0 * std::log10(32768.0 * window_sum / 2.0))
                         : 0.0f;
  const std::vector<MelBand> bands =
      MelBands(c.mel_bands, c.mel_low_hz, c.mel_high_hz, c.fft_size, c.sample_rate_hz, c.mel_scale);
  const std::vector<double> gains =
      MelBandGains(c.mel_bands, c.mel_low_hz, c.mel_high_hz, c.mel_scale, c.mel_norm);
  for (size_t b = 0; b < bands.size(); ++b) {
    band_first_.push_back(bands[b].first_bin);
    band_count_.push_back(static_cast<int>(bands[b].weights.size()));
    band_offset_.push_back(static_cast<int>(mel_weights_.size()));
    // The normalisation folded into the weights, as the float graphs do.
    for (double w : bands[b].weights) mel_weights_.push_back(static_cast<float>(w * gains[b]));
  }
  for (double v : DctMatrix(c.mel_bands, c.mfcc_count, c.lifter)) dct_.push_back(static_cast<float>(v));
}

ReferenceFrontEnd::~ReferenceFrontEnd() = default;

void ReferenceFrontEnd::Process(std::span<const int16_t> hop) {
  const auto keep = static_cast<ptrdiff_t>(history_.size() - hop.size());
  std::copy(history_.end() - keep, history_.end(), history_.begin());
  for (size_t n = 0; n < hop.size(); ++n) {
    const float x = hop[n];
    const float y = config_.dc_removal ? x - x_prev_ + dc_pole_ * y_prev_ : x;
    history_[static_cast<size_t>(keep) + n] = y - preemphasis_ * y_prev_;
    x_prev_ = x;
    y_prev_ = y;
  }
  const size_t length = history_.size();
  for (size_t n = 0; n < length; ++n) plan_->in[n] = history_[n] * window_[n];
  std::fill(plan_->in + length, plan_->in + config_.fft_size, 0.0f);
  fftwf_execute(plan_->plan);
  for (size_t k = 0; k < power_.size(); ++k) {
    power_[k] = plan_->out[k][0] * plan_->out[k][0] + plan_->out[k][1] * plan_->out[k][1];
  }
  for (size_t b = 0; b < band_first_.size(); ++b) {
    float energy = 0;
    for (int i = 0; i < band_count_[b]; ++i) {
      energy += mel_weights_[band_offset_[b] + i] * power_[band_first_[b] + i];
    }
    // dB re the reference, floored as the fixed-point path.
    const auto floor_db = static_cast<float>(config_.log_floor_db);
    const float db = energy > 0 ? 10.0f * (std::log10(energy) - log10_reference_) : floor_db;
    logmel_db_[b] = std::max(floor_db, db);
  }
  const size_t bands = logmel_db_.size();
  for (size_t i = 0; i < mfcc_.size(); ++i) {
    float sum = 0;
    for (size_t j = 0; j < bands; ++j) sum += dct_[i * bands + j] * logmel_db_[j];
    mfcc_[i] = sum;
  }
  if (config_.mean_norm == MeanNorm::kRunning) {
    const float alpha = 1.0f / static_cast<float>(1 << config_.mean_norm_shift);
    for (size_t i = 0; i < mfcc_.size(); ++i) {
      mean_[i] = mean_primed_ ? mean_[i] + alpha * (mfcc_[i] - mean_[i]) : mfcc_[i];
      mfcc_[i] -= mean_[i];
    }
    mean_primed_ = true;
  }
}

}  // namespace earshot::features
