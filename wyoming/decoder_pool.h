// DecoderPool: speech-to-text decoders of one configuration for many connections. A pocketsphinx
// model serves one utterance at a time (stt.h), so each decoder is a model of its own: the first
// is loaded at start (a broken configuration fails there), the others when first needed, up to
// `size`. A connection holds a decoder only while it decodes a whole recording, never while its
// client is sending, so a slow client keeps no decoder from the others.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "base/result.h"
#include "models/stt/stt.h"

namespace earshot::wyoming {

class DecoderPool {
 public:
  static Result<std::unique_ptr<DecoderPool>> Create(const stt::SttConfig& config, int size);

  // Decodes `samples` (16 kHz mono) as one utterance; waits while all `size` decoders are busy.
  Result<stt::SttResult> Decode(std::span<const int16_t> samples);

 private:
  DecoderPool(const stt::SttConfig& config, int size) : config_(config), size_(size) {}
  Result<std::shared_ptr<const stt::SttModel>> Acquire();
  void Release(std::shared_ptr<const stt::SttModel> model);

  const stt::SttConfig config_;
  const int size_;
  std::mutex mutex_;
  std::condition_variable freed_;
  std::vector<std::shared_ptr<const stt::SttModel>> idle_;
  int loaded_ = 0;  // loaded or loading
};

}  // namespace earshot::wyoming
