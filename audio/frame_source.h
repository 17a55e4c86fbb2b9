// FrameSource: anything that yields 16 kHz mono int16 audio in 10 ms frames (files now, ALSA later).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "audio/converter.h"
#include "audio/format.h"
#include "audio/sound_file.h"
#include "base/result.h"

namespace earshot::audio {

class FrameSource {
 public:
  virtual ~FrameSource() = default;
  // Fills `frame` with the next 10 ms; false at the end of the stream. The last partial frame is
  // zero-padded.
  virtual Result<bool> Next(Frame& frame) = 0;
  // What has been read so far, before conversion.
  virtual SourceInfo info() const = 0;
};

struct FileSourceOptions {
  int read_chunk_ms = 100;                // decoded per read: bounds memory whatever the length
  std::string resampler_quality = "high";  // libsoxr recipe
};

// A WAV/FLAC/... file through SoundFile and Converter.
class FileSource final : public FrameSource {
 public:
  static Result<std::unique_ptr<FileSource>> Open(const std::string& path,
                                                  const FileSourceOptions& options);
  Result<bool> Next(Frame& frame) override;
  SourceInfo info() const override;

 private:
  FileSource(std::unique_ptr<SoundFile> file, std::unique_ptr<Converter> converter,
             size_t chunk_frames);
  // Decodes and converts the next chunk into pending_; sets at_end_ after the last one.
  Status Refill();
  // Refill for 16 kHz mono 16-bit files: read as stored straight into pending_.
  Status RefillDirect();

  std::unique_ptr<SoundFile> file_;
  std::unique_ptr<Converter> converter_;
  // 16 kHz mono 16-bit PCM: its samples are the output, read as int16 (the float round trip gives
  // the same integers, for a tenth of the instructions: docs/research/arm64.md).
  bool direct_;
  size_t chunk_frames_;
  std::vector<float> chunk_;        // interleaved, as decoded (unused when direct_)
  std::vector<int16_t> pending_;    // converted samples not yet handed out
  size_t pending_pos_ = 0;
  int64_t frames_read_ = 0;
  bool input_done_ = false;  // the file is exhausted
  bool at_end_ = false;      // and the converter drained
};

// A whole file (at most its first max_samples, whole 10 ms frames, the last one zero-padded) as
// 16 kHz mono int16, through FileSource: for tests, benchmarks and tools that want it in memory.
Result<std::vector<int16_t>> ReadFile(const std::string& path,
                                      size_t max_samples = std::numeric_limits<size_t>::max());

}  // namespace earshot::audio
