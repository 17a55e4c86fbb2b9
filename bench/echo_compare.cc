// echo_compare: one recording through one of the echo cancellers that issue 80 chose between, for
// tools/eval/echo_eval.py --canceller: earshot's (speexdsp, echo/echo_canceller.h) and WebRTC's
// (libwebrtc-audio-processing, as PulseAudio's echo-cancel module runs it: AEC with its extended
// filter and its own delay estimate, or the mobile AECM given earshot's delay estimate).
//
// usage: echo_compare speex|webrtc-aec[-moderate|-low]|webrtc-aecm PLAYED FILE OUT  (16 kHz WAV)
#include <webrtc/modules/audio_processing/include/audio_processing.h>
#include <webrtc/modules/interface/module_common_types.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "audio/frame_source.h"
#include "audio/sound_file.h"
#include "echo/delay_estimator.h"
#include "echo/echo_canceller.h"

namespace {

using earshot::audio::Frame;
using earshot::audio::kFrameSamples;

Frame At(const std::vector<int16_t>& x, size_t f) {
  Frame frame{};
  const size_t begin = f * kFrameSamples;
  if (begin < x.size()) {
    std::copy_n(x.begin() + static_cast<std::ptrdiff_t>(begin),
                std::min<size_t>(kFrameSamples, x.size() - begin), frame.begin());
  }
  return frame;
}

std::vector<int16_t> Speex(const std::vector<int16_t>& played, const std::vector<int16_t>& mic) {
  auto canceller = earshot::echo::EchoCanceller::Create({});
  std::vector<int16_t> out;
  for (size_t f = 0; f < mic.size() / kFrameSamples; ++f) {
    Frame frame = At(mic, f);
    (*canceller)->Process(At(played, f), frame);
    out.insert(out.end(), frame.begin(), frame.end());
  }
  return out;
}

void Load(webrtc::AudioFrame& frame, const Frame& samples) {
  frame.sample_rate_hz_ = 16000;
  frame.num_channels_ = 1;
  frame.samples_per_channel_ = kFrameSamples;
  std::memcpy(frame.data_, samples.data(), sizeof(int16_t) * kFrameSamples);
}

std::vector<int16_t> WebRtc(const std::vector<int16_t>& played, const std::vector<int16_t>& mic,
                            bool mobile, webrtc::EchoCancellation::SuppressionLevel level) {
  webrtc::Config config;
  config.Set<webrtc::ExtendedFilter>(new webrtc::ExtendedFilter(true));
  config.Set<webrtc::DelayAgnostic>(new webrtc::DelayAgnostic(true));
  std::unique_ptr<webrtc::AudioProcessing> apm(webrtc::AudioProcessing::Create(config));
  if (mobile) {
    apm->echo_control_mobile()->set_routing_mode(webrtc::EchoControlMobile::kLoudSpeakerphone);
    apm->echo_control_mobile()->Enable(true);
  } else {
    apm->echo_cancellation()->set_suppression_level(level);
    apm->echo_cancellation()->Enable(true);
  }
  earshot::echo::DelayEstimator estimator{earshot::echo::DelayEstimatorConfig{}};
  std::vector<int16_t> out;
  webrtc::AudioFrame far, near;
  for (size_t f = 0; f < mic.size() / kFrameSamples; ++f) {
    const Frame p = At(played, f), m = At(mic, f);
    estimator.Push(p, m);
    Load(far, p);
    Load(near, m);
    apm->ProcessReverseStream(&far);
    apm->set_stream_delay_ms(estimator.delay_frames() * earshot::audio::kFrameMs);
    apm->ProcessStream(&near);
    out.insert(out.end(), near.data_, near.data_ + kFrameSamples);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string backend = argc == 5 ? argv[1] : "";
  const std::map<std::string, webrtc::EchoCancellation::SuppressionLevel> levels = {
      {"webrtc-aec", webrtc::EchoCancellation::kHighSuppression},
      {"webrtc-aec-moderate", webrtc::EchoCancellation::kModerateSuppression},
      {"webrtc-aec-low", webrtc::EchoCancellation::kLowSuppression},
      {"webrtc-aecm", webrtc::EchoCancellation::kHighSuppression}};
  if (backend != "speex" && levels.count(backend) == 0) {
    std::fprintf(stderr,
                 "usage: echo_compare speex|webrtc-aec|webrtc-aec-moderate|webrtc-aec-low|"
                 "webrtc-aecm PLAYED FILE OUT\n");
    return 2;
  }
  auto played = earshot::audio::ReadFile(argv[2]);
  auto mic = earshot::audio::ReadFile(argv[3]);
  for (const auto* r : {&played, &mic}) {
    if (!r->ok()) {
      std::fprintf(stderr, "echo_compare: %s\n", r->error().message.c_str());
      return 1;
    }
  }
  const std::vector<int16_t> out =
      backend == "speex" ? Speex(*played, *mic)
                         : WebRtc(*played, *mic, backend == "webrtc-aecm", levels.at(backend));
  if (auto s = earshot::audio::WriteWav16k(argv[4], out); !s.ok()) {
    std::fprintf(stderr, "echo_compare: %s\n", s.error().message.c_str());
    return 1;
  }
  return 0;
}
