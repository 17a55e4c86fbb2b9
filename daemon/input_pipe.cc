// wav:- : a recording on standard input (`arecord -f S16_LE -r 16000 | earshotd --input wav:-`,
// a WAV or AU stream), read as it comes. Reading a pipe blocks until its writer writes, so a
// reader thread decodes it into a small buffer and wakes the loop through an eventfd; the loop moves
// the frames into the FrameQueue (stopping while it is full, until Resume()) and, at the end of the
// stream, tells the manager (on_end) as wav:PATH does. Nothing on the loop ever reads the pipe.
//
// The reader owns nothing the loop frees: its state is shared, so a reader still blocked in a read
// when the daemon stops is detached and ends with the process.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

#include "audio/format.h"
#include "audio/frame_source.h"
#include "audio/sound_file.h"
#include "daemon/input.h"
#include "daemon/log.h"
#include "daemon/wakeup.h"
#include "options/stage_options.h"

namespace earshot::daemon {
namespace {

constexpr size_t kBufferedFrames = 50;  // 0.5 s between the reader and the loop

// What the reader thread and the loop share.
struct PipeState {
  std::mutex mutex;
  std::condition_variable room;  // the loop took frames, or the input stops
  std::deque<audio::Frame> frames;
  bool ended = false;   // the stream ended (or failed): no more frames after those buffered
  bool failed = false;  // it could not be read to its end
  bool stop = false;    // the input is going away
  int wakeup_fd = -1;   // eventfd the loop watches
  ~PipeState() {
    if (wakeup_fd >= 0) close(wakeup_fd);
  }
};

void ReadStream(std::shared_ptr<PipeState> state, audio::FileSourceOptions options) {
  auto finish = [&](bool failed) {
    std::lock_guard lock(state->mutex);
    state->ended = true;
    state->failed = failed;
    SignalWakeup(state->wakeup_fd);
  };
  auto source = audio::FileSource::Open(std::string(audio::kStandardInput), options);
  if (!source.ok()) {
    Log(LOG_ERR, "%s", source.error().message.c_str());
    return finish(true);
  }
  if (std::string band = audio::BandLimitWarning("standard input", (*source)->info().rate);
      !band.empty()) {
    Log(LOG_WARNING, "%s", band.c_str());
  }
  audio::Frame frame;
  for (;;) {
    Result<bool> more = (*source)->Next(frame);
    if (!more.ok()) Log(LOG_ERR, "%s", more.error().message.c_str());
    if (!more.ok() || !*more) return finish(!more.ok());
    std::unique_lock lock(state->mutex);
    state->room.wait(lock, [&] { return state->stop || state->frames.size() < kBufferedFrames; });
    if (state->stop) return;
    state->frames.push_back(frame);
    SignalWakeup(state->wakeup_fd);
  }
}

class PipeInput final : public Input {
 public:
  PipeInput(const config::Config& config, sd_event* event, InputHooks hooks)
      : event_(event), hooks_(std::move(hooks)), state_(std::make_shared<PipeState>()) {
    options_ = options::BindFileSource(config);
  }

  ~PipeInput() override {
    {
      std::lock_guard lock(state_->mutex);
      state_->stop = true;
    }
    state_->room.notify_all();
    source_.reset();
    if (reader_.joinable()) reader_.detach();  // it may be blocked in a read of the pipe
  }

  Status Start() override {
    state_->wakeup_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (state_->wakeup_fd < 0) return Error{"wav:-: eventfd: " + std::string(strerror(errno))};
    sd_event_source* s = nullptr;
    int r = sd_event_add_io(event_, &s, state_->wakeup_fd, EPOLLIN, OnWakeup, this);
    if (r < 0) return Error{"wav:-: cannot watch the reader: " + std::string(strerror(-r))};
    source_.reset(s);
    reader_ = std::thread(ReadStream, state_, options_);
    Log(LOG_INFO, "reading standard input as it comes");
    return OkStatus();
  }

  void Resume() override { Move(); }
  uint64_t xruns() const override { return 0; }
  uint64_t reopens() const override { return 0; }
  bool capturing() const override { return !ended_; }
  std::string description() const override { return "wav:- (standard input)"; }

 private:
  static int OnWakeup(sd_event_source*, int fd, uint32_t, void* userdata) {
    DrainWakeup(fd);
    static_cast<PipeInput*>(userdata)->Move();
    return 0;
  }
  void Move();

  sd_event* event_;
  InputHooks hooks_;
  audio::FileSourceOptions options_;
  std::shared_ptr<PipeState> state_;
  std::thread reader_;
  EventSourcePtr source_;
  int64_t pushed_ = 0;
  bool ended_ = false;
};

// Moves what the reader buffered into the queue, until it is full (then Resume() comes back).
void PipeInput::Move() {
  if (ended_) return;
  std::unique_lock lock(state_->mutex);
  while (!state_->frames.empty()) {
    if (hooks_.queue->full()) {
      lock.unlock();
      hooks_.want_space();
      return;
    }
    hooks_.queue->Push(state_->frames.front(), MonotonicUsec());
    state_->frames.pop_front();
    ++pushed_;
  }
  state_->room.notify_one();
  if (!state_->ended) return;
  const bool failed = state_->failed;
  lock.unlock();
  ended_ = true;
  Log(LOG_INFO, "end of standard input after %.2f s", audio::FramesToSeconds(pushed_));
  hooks_.on_end(failed);
}

}  // namespace

std::unique_ptr<Input> MakePipeInput(const config::Config& config, sd_event* event,
                                     InputHooks hooks) {
  return std::make_unique<PipeInput>(config, event, std::move(hooks));
}

}  // namespace earshot::daemon
