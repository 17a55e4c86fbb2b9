// ReferenceFrontEnd: the same front end in floating point on fftw3 (single precision, fftwf), with
// the same parameters, the same stage order and the same dB convention as FrontEnd. The tests measure
// the fixed-point path against it, the benchmark compares their costs, and training scripts may use
// it to check features. It is not used on the device.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "base/result.h"
#include "features/front_end_config.h"

namespace earshot::features {

class ReferenceFrontEnd {
 public:
  static Result<std::unique_ptr<ReferenceFrontEnd>> Create(const FrontEndConfig& config);
  ~ReferenceFrontEnd();
  ReferenceFrontEnd(const ReferenceFrontEnd&) = delete;
  ReferenceFrontEnd& operator=(const ReferenceFrontEnd&) = delete;

  void Process(std::span<const int16_t> hop);

  std::span<const float> logmel_db() const { return logmel_db_; }  // dB re full scale
  std::span<const float> mfcc() const { return mfcc_; }            // dB units

 private:
  explicit ReferenceFrontEnd(const FrontEndConfig& config);
  struct Plan;

  FrontEndConfig config_;
  std::unique_ptr<Plan> plan_;
  float dc_pole_, preemphasis_;
  float x_prev_ = 0, y_prev_ = 0;
  std::vector<float> history_, window_, fft_in_, power_, mel_weights_, dct_, logmel_db_, mfcc_;
  std::vector<int> band_first_, band_count_, band_offset_;
  std::vector<float> mean_;
  bool mean_primed_ = false;
  float log10_full_scale_ = 0;
};

}  // namespace earshot::features
