#include "audio/frame_source.h"

#include <algorithm>

namespace earshot::audio {
namespace {

constexpr size_t kMaxChunkSamples = size_t{1} << 20;  // 4 MB of float samples decoded at a time

}  // namespace

Result<std::unique_ptr<FileSource>> FileSource::Open(const std::string& path,
                                                     const FileSourceOptions& options) {
  Result<std::unique_ptr<SoundFile>> file = SoundFile::Open(path);
  if (!file.ok()) return file.error();
  const int rate = (*file)->rate();
  // read_chunk_ms of the file's rate, but at most kMaxChunkSamples over all its channels: 10 s of
  // 64 channels at 384 kHz would have asked for 1 GB.
  const size_t channels = static_cast<size_t>((*file)->channels());
  const size_t chunk_frames =
      std::clamp<size_t>(static_cast<size_t>(rate) * options.read_chunk_ms / 1000, 1,
                         std::max<size_t>(1, kMaxChunkSamples / channels));
  Result<std::unique_ptr<Converter>> converter =
      Converter::Create(rate, (*file)->channels(), options.resampler_quality, chunk_frames);
  if (!converter.ok()) return Error{path + ": " + converter.error().message};
  return std::unique_ptr<FileSource>(
      new FileSource(std::move(file).value(), std::move(converter).value(), chunk_frames));
}

FileSource::FileSource(std::unique_ptr<SoundFile> file, std::unique_ptr<Converter> converter,
                       size_t chunk_frames)
    : file_(std::move(file)),
      converter_(std::move(converter)),
      direct_(file_->int16_samples() && file_->rate() == kSampleRate && file_->channels() == 1),
      chunk_frames_(chunk_frames),
      chunk_(direct_ ? 0 : chunk_frames * file_->channels()) {
  pending_.reserve(chunk_frames * 4 + 8192);  // > one converted chunk plus a partial frame
}

SourceInfo FileSource::info() const {
  return SourceInfo{file_->rate(), file_->channels(), frames_read_};
}

Status FileSource::Refill() {
  // Keep the unconsumed tail (less than a frame), then append the next converted chunk.
  pending_.erase(pending_.begin(), pending_.begin() + static_cast<ptrdiff_t>(pending_pos_));
  pending_pos_ = 0;
  if (direct_) return RefillDirect();
  Result<std::span<const int16_t>> converted = std::span<const int16_t>();
  if (!input_done_) {
    Result<size_t> got = file_->Read(chunk_);
    if (!got.ok()) return got.error();
    frames_read_ += static_cast<int64_t>(*got);
    if (*got == 0) {
      input_done_ = true;
    } else {
      converted = converter_->Process({chunk_.data(), *got * file_->channels()});
    }
  }
  if (input_done_) {
    converted = converter_->Flush();
    if (converted.ok() && converted->empty()) at_end_ = true;
  }
  if (!converted.ok()) return Error{file_->path() + ": " + converted.error().message};
  pending_.insert(pending_.end(), converted->begin(), converted->end());
  return OkStatus();
}

Status FileSource::RefillDirect() {
  const size_t kept = pending_.size();
  pending_.resize(kept + chunk_frames_);
  Result<size_t> got = file_->Read(std::span<int16_t>(pending_).subspan(kept));
  if (!got.ok()) return got.error();
  pending_.resize(kept + *got);
  frames_read_ += static_cast<int64_t>(*got);
  at_end_ = *got == 0;
  return OkStatus();
}

Result<bool> FileSource::Next(Frame& frame) {
  while (pending_.size() - pending_pos_ < frame.size() && !at_end_) {
    Status s = Refill();
    if (!s.ok()) return s.error();
  }
  const size_t available = std::min(pending_.size() - pending_pos_, frame.size());
  if (available == 0) return false;
  std::copy_n(pending_.begin() + static_cast<ptrdiff_t>(pending_pos_), available, frame.begin());
  std::fill(frame.begin() + static_cast<ptrdiff_t>(available), frame.end(), int16_t{0});
  pending_pos_ += available;
  return true;
}

Result<std::vector<int16_t>> ReadFile(const std::string& path, size_t max_samples) {
  auto source = FileSource::Open(path, {});
  if (!source.ok()) return source.error();
  std::vector<int16_t> samples;
  Frame frame;
  while (samples.size() < max_samples) {
    Result<bool> more = (*source)->Next(frame);
    if (!more.ok()) return more.error();
    if (!*more) break;
    samples.insert(samples.end(), frame.begin(), frame.end());
  }
  return samples;
}

}  // namespace earshot::audio
