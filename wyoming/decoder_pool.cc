#include "wyoming/decoder_pool.h"

#include <algorithm>

#include "audio/format.h"
#include "models/stt_factory/load_model.h"

namespace earshot::wyoming {

Result<std::unique_ptr<DecoderPool>> DecoderPool::Create(const stt::SttConfig& config, int size) {
  std::unique_ptr<DecoderPool> pool(new DecoderPool(config, std::max(size, 1)));
  Result<std::shared_ptr<const stt::SttModel>> first = stt_factory::LoadModel(config);
  if (!first.ok()) return first.error();
  pool->idle_.push_back(std::move(first).value());
  pool->loaded_ = 1;
  return pool;
}

Result<std::shared_ptr<const stt::SttModel>> DecoderPool::Acquire() {
  std::unique_lock lock(mutex_);
  freed_.wait(lock, [&] { return !idle_.empty() || loaded_ < size_; });
  if (!idle_.empty()) {
    std::shared_ptr<const stt::SttModel> model = std::move(idle_.back());
    idle_.pop_back();
    return model;
  }
  ++loaded_;  // this thread loads one more, outside the lock
  lock.unlock();
  Result<std::shared_ptr<const stt::SttModel>> model = stt_factory::LoadModel(config_);
  if (!model.ok()) {
    lock.lock();
    --loaded_;
    freed_.notify_one();
  }
  return model;
}

void DecoderPool::Release(std::shared_ptr<const stt::SttModel> model) {
  std::lock_guard lock(mutex_);
  idle_.push_back(std::move(model));
  freed_.notify_one();
}

Result<stt::SttResult> DecoderPool::Decode(std::span<const int16_t> samples) {
  Result<std::shared_ptr<const stt::SttModel>> model = Acquire();
  if (!model.ok()) return model.error();
  Result<stt::SttResult> result = [&]() -> Result<stt::SttResult> {
    std::unique_ptr<stt::SttSession> session = (*model)->NewSession();
    if (Status s = session->Begin(); !s.ok()) return s.error();
    for (size_t at = 0; at < samples.size(); at += audio::kFrameSamples) {
      const size_t n = std::min<size_t>(audio::kFrameSamples, samples.size() - at);
      if (Status s = session->Feed(samples.subspan(at, n)); !s.ok()) return s.error();
    }
    return session->End();
  }();
  Release(std::move(model).value());
  return result;
}

}  // namespace earshot::wyoming
