#include "audio/converter.h"

#include <soxr.h>

#if defined(__aarch64__)
#include <arm_neon.h>
#endif

#include <algorithm>
#include <cmath>
#include <string>

#include "audio/format.h"

namespace earshot::audio {
namespace {

Result<unsigned long> Recipe(std::string_view quality) {
  if (quality == "quick") return SOXR_QQ;
  if (quality == "low") return SOXR_LQ;
  if (quality == "medium") return SOXR_MQ;
  if (quality == "high") return SOXR_HQ;
  if (quality == "very_high") return SOXR_VHQ;
  return Error{"unknown resampler quality '" + std::string(quality) +
               "' (expected quick, low, medium, high or very_high)"};
}

}  // namespace

std::string BandLimitWarning(std::string_view source, int rate) {
  if (rate >= kSampleRate) return "";
  return std::string(source) + ": " + std::to_string(rate) + " Hz audio holds nothing above " +
         std::to_string(rate / 2) + " Hz; the models were trained on " +
         std::to_string(kSampleRate) + " Hz audio (up to " + std::to_string(kSampleRate / 2) +
         " Hz): expect missed wake words and poorer transcripts";
}

void FloatToInt16(std::span<const float> in, std::span<int16_t> out) {
  size_t i = 0;
#if defined(__aarch64__)
  // Eight at a time, the same integers: fcvtns rounds to nearest, ties to even, as lrintf in the
  // default rounding mode; the clamp first, so the int32 -> int16 narrowing keeps every value.
  const float32x4_t low = vdupq_n_f32(-32768.0f), high = vdupq_n_f32(32767.0f);
  for (; i + 8 <= in.size(); i += 8) {
    const float32x4_t a = vminq_f32(vmaxq_f32(vmulq_n_f32(vld1q_f32(&in[i]), 32768.0f), low), high);
    const float32x4_t b =
        vminq_f32(vmaxq_f32(vmulq_n_f32(vld1q_f32(&in[i + 4]), 32768.0f), low), high);
    vst1q_s16(&out[i], vcombine_s16(vmovn_s32(vcvtnq_s32_f32(a)), vmovn_s32(vcvtnq_s32_f32(b))));
  }
#endif
  for (; i < in.size(); ++i) {
    // x * 2^15 maps [-1, 1) onto the int16 range; lrintf rounds to nearest (ties to even).
    const float scaled = std::clamp(in[i] * 32768.0f, -32768.0f, 32767.0f);
    out[i] = static_cast<int16_t>(std::lrintf(scaled));
  }
}

Result<std::unique_ptr<Converter>> Converter::Create(int input_rate, int channels,
                                                     std::string_view quality,
                                                     size_t max_input_frames) {
  if (channels < 1) return Error{"invalid channel count " + std::to_string(channels)};
  if (input_rate < kMinInputRate) {
    return Error{"sample rate " + std::to_string(input_rate) + " Hz: below " +
                 std::to_string(kMinInputRate) + " Hz"};
  }
  Result<unsigned long> recipe = Recipe(quality);
  if (!recipe.ok()) return recipe.error();

  soxr* resampler = nullptr;
  size_t max_output_frames = max_input_frames;
  if (input_rate != kSampleRate) {
    soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
    soxr_quality_spec_t q = soxr_quality_spec(*recipe, 0);
    soxr_runtime_spec_t rt = soxr_runtime_spec(1);  // one thread: the pipeline owns the cores
    soxr_error_t err = nullptr;
    resampler = soxr_create(input_rate, kSampleRate, 1, &err, &io, &q, &rt);
    if (err != nullptr) return Error{std::string("libsoxr: ") + err};
    // Output per call: the rate ratio times the input, plus room for the filter's delay line.
    max_output_frames = max_input_frames * kSampleRate / static_cast<size_t>(input_rate) + 4096;
  }
  return std::unique_ptr<Converter>(
      new Converter(channels, resampler, max_input_frames, max_output_frames));
}

Converter::Converter(int channels, soxr* resampler, size_t max_input_frames,
                     size_t max_output_frames)
    : channels_(channels),
      resampler_(resampler),
      mono_(max_input_frames),
      resampled_(max_output_frames),
      out_(max_output_frames) {}

Converter::~Converter() {
  if (resampler_ != nullptr) soxr_delete(resampler_);
}

Result<std::span<const int16_t>> Converter::Process(std::span<const float> interleaved) {
  const size_t frames = interleaved.size() / channels_;
  if (frames > mono_.size()) return Error{"converter chunk larger than its set-up maximum"};
  const float* mono = interleaved.data();
  if (channels_ > 1) {
    const float scale = 1.0f / static_cast<float>(channels_);
    for (size_t i = 0; i < frames; ++i) {
      float sum = 0;
      for (int c = 0; c < channels_; ++c) sum += interleaved[i * channels_ + c];
      mono_[i] = sum * scale;
    }
    mono = mono_.data();
  }
  return Resample(mono, frames);
}

Result<std::span<const int16_t>> Converter::Flush() {
  if (resampler_ == nullptr) return std::span<const int16_t>();
  return Resample(nullptr, 0);  // null input tells libsoxr the stream has ended
}

Result<std::span<const int16_t>> Converter::Resample(const float* mono, size_t frames) {
  if (resampler_ == nullptr) {
    FloatToInt16({mono, frames}, out_);
    return std::span<const int16_t>(out_.data(), frames);
  }
  size_t done_in = 0;
  size_t done_out = 0;
  soxr_error_t err =
      soxr_process(resampler_, mono, frames, &done_in, resampled_.data(), resampled_.size(),
                   &done_out);
  if (err != nullptr) return Error{std::string("libsoxr: ") + err};
  if (done_in != frames) return Error{"libsoxr did not take the whole chunk"};
  FloatToInt16({resampled_.data(), done_out}, out_);
  return std::span<const int16_t>(out_.data(), done_out);
}

}  // namespace earshot::audio
