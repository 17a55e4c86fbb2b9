// wav:PATH: a recording (any format FileSource reads) played through the daemon's queue, for tests
// and demos. daemon.realtime = true (default): a 10 ms timer releases the frames whose time has
// come, as a microphone would; false: a defer source pushes them as fast as the queue takes them.
// At the end of the file the manager is told (on_end), which stops the daemon like SIGTERM; a file
// that fails to decode part way ends it too, with exit status 1.
#include <cstring>

#include "audio/format.h"
#include "audio/frame_source.h"
#include "daemon/input.h"
#include "daemon/log.h"
#include "options/stage_options.h"

namespace earshot::daemon {
namespace {

constexpr uint64_t kFrameUsec = audio::kFrameMs * 1000;
constexpr int kFramesPerBatch = 50;  // as-fast-as-possible: frames per loop iteration

class WavInput final : public Input {
 public:
  WavInput(std::string path, const config::Config& config, sd_event* event, InputHooks hooks)
      : path_(std::move(path)), event_(event), hooks_(std::move(hooks)) {
    options_ = options::BindFileSource(config);
    realtime_ = config.Bool("daemon.realtime");
  }

  Status Start() override {
    auto file = audio::FileSource::Open(path_, options_);
    if (!file.ok()) return file.error();
    file_ = std::move(file).value();
    start_usec_ = MonotonicUsec();
    sd_event_source* s = nullptr;
    int r = realtime_
                ? sd_event_add_time(event_, &s, CLOCK_MONOTONIC, start_usec_, 1000, OnTick, this)
                : sd_event_add_defer(event_, &s, OnDefer, this);
    if (r < 0) return Error{path_ + ": cannot schedule playback: " + strerror(-r)};
    source_.reset(s);
    sd_event_source_set_enabled(s, realtime_ ? SD_EVENT_ONESHOT : SD_EVENT_ON);
    Log(LOG_INFO, "playing %s (%s)", path_.c_str(),
        realtime_ ? "real time" : "as fast as possible");
    return OkStatus();
  }

  void Resume() override {
    if (source_ && !ended_) {
      sd_event_source_set_enabled(source_.get(), realtime_ ? SD_EVENT_ONESHOT : SD_EVENT_ON);
    }
  }
  uint64_t xruns() const override { return 0; }
  uint64_t reopens() const override { return 0; }
  bool capturing() const override { return !ended_; }
  std::string description() const override { return "wav:" + path_; }

 private:
  // Pushes frames until `count` are pushed in all; false when playback stopped (full or ended).
  bool PushUntil(int64_t count);
  static int OnTick(sd_event_source* s, uint64_t usec, void* userdata);
  static int OnDefer(sd_event_source* s, void* userdata);

  std::string path_;
  sd_event* event_;
  InputHooks hooks_;
  audio::FileSourceOptions options_;
  bool realtime_ = true;
  std::unique_ptr<audio::FileSource> file_;
  EventSourcePtr source_;
  uint64_t start_usec_ = 0;
  int64_t pushed_ = 0;
  bool ended_ = false;
};

bool WavInput::PushUntil(int64_t count) {
  audio::Frame frame;
  while (pushed_ < count) {
    if (hooks_.queue->full()) {
      sd_event_source_set_enabled(source_.get(), SD_EVENT_OFF);
      hooks_.want_space();
      return false;
    }
    Result<bool> more = file_->Next(frame);
    if (!more.ok()) Log(LOG_ERR, "%s", more.error().message.c_str());
    if (!more.ok() || !*more) {
      ended_ = true;
      sd_event_source_set_enabled(source_.get(), SD_EVENT_OFF);
      Log(LOG_INFO, "end of %s after %.2f s", path_.c_str(), audio::FramesToSeconds(pushed_));
      hooks_.on_end(!more.ok());
      return false;
    }
    hooks_.queue->Push(frame, start_usec_ + static_cast<uint64_t>(pushed_ + 1) * kFrameUsec);
    ++pushed_;
  }
  return true;
}

int WavInput::OnTick(sd_event_source* s, uint64_t, void* userdata) {
  auto* self = static_cast<WavInput*>(userdata);
  const auto due = static_cast<int64_t>((MonotonicUsec() - self->start_usec_) / kFrameUsec);
  if (!self->PushUntil(due)) return 0;
  sd_event_source_set_time(s, self->start_usec_ + static_cast<uint64_t>(due + 1) * kFrameUsec);
  sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
  return 0;
}

int WavInput::OnDefer(sd_event_source*, void* userdata) {
  auto* self = static_cast<WavInput*>(userdata);
  self->PushUntil(self->pushed_ + kFramesPerBatch);
  return 0;
}

}  // namespace

std::unique_ptr<Input> MakeWavInput(std::string path, const config::Config& config, sd_event* event,
                                    InputHooks hooks) {
  return std::make_unique<WavInput>(std::move(path), config, event, std::move(hooks));
}

}  // namespace earshot::daemon
