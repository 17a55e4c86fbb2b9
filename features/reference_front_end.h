// ReferenceFrontEnd: the same front end in floating point on fftw3 (single precision, fftwf), with
// the same parameters (mel scale, normalisation, dB reference, DC removal included), the same stage
// order and the same dB convention as FrontEnd. The tests measure the fixed-point path against it,
// the benchmark compares their costs, and training scripts may use it to check features. It is not
// used on the device.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "base/result.h"
#include "features/front_end_config.h"

namespace earshot::features {

class ReferenceFrontEnd {
 public:
  // How fftw chooses its plan: kMeasure times candidates (the benchmark's fair comparison; about
  // 0.1 s once per process natively, two minutes under qemu-user's software floating point),
  // kEstimate picks one by rule (the tests: any plan gives the same spectrum to float rounding).
  enum class FftPlanning { kEstimate, kMeasure };
  static Result<std::unique_ptr<ReferenceFrontEnd>> Create(
      const FrontEndConfig& config, FftPlanning planning = FftPlanning::kEstimate);
  ~ReferenceFrontEnd();
  ReferenceFrontEnd(const ReferenceFrontEnd&) = delete;
  ReferenceFrontEnd& operator=(const ReferenceFrontEnd&) = delete;

  void Process(std::span<const int16_t> hop);

  std::span<const float> logmel_db() const { return logmel_db_; }  // dB re config.log_reference
  std::span<const float> mfcc() const { return mfcc_; }            // dB units

 private:
  ReferenceFrontEnd(const FrontEndConfig& config, FftPlanning planning);
  struct Plan;

  FrontEndConfig config_;
  std::unique_ptr<Plan> plan_;
  float dc_pole_, preemphasis_;
  float x_prev_ = 0, y_prev_ = 0;
  std::vector<float> history_, window_, fft_in_, power_, mel_weights_, dct_, logmel_db_, mfcc_;
  std::vector<int> band_first_, band_count_, band_offset_;
  std::vector<float> mean_;
  bool mean_primed_ = false;
  float log10_reference_ = 0;  // log10 of the energy that reads 0 dB
};

}  // namespace earshot::features
